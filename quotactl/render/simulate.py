"""Views of one simulation: tables for a platform admin, markdown, and the JSON document.

JSON (``simulate -o json``), format version 1::

    {
      "format_version": "1",
      "trace": "trace.csv",
      "jobs": 1000000,                      # rows replayed
      "run": RUN,                           # the configuration PATH
      "baseline": null | RUN,               # with --compare or --baseline: the reference run
      "verdict": null | "the change raises utilisation from 41% to 57%; ...",
      "comparison": null | COMPARISON       # see quotactl/render/compare.py
    }
    RUN = {
      "config": "configs/" | "every share RESERVE",
      "strategy_override": null | "RESERVE",
      "window_seconds": 1616400.0,          # 0 to the last submission
      "end_seconds": 1700000.0,             # 0 to the last job's end
      "utilisation": 0.5712 | null,         # all queues: used / claimed, over the window
      "queues": [{"queue", "claimed": {instance type: instances},
                  "used_instance_hours", "claimed_instance_hours", "utilisation"}],
      "shares": [{"queue", "share", "team", "strategy",
                  "jobs": {"submitted", "finished", "stuck", "misconfigured",
                           "failed", "terminated", "never_started",
                           "refused"},      # governed runs only: sent while DISABLED
                  "wait_seconds": null | {"started", "mean", "p50", "p95", "max",
                                          "never_started"},
                  "instance_hours": {"own", "borrowed", "lent"},
                  "preemptions": {"count", "discarded_instance_hours"}}],
      "governed": {"actions", "by_policy": {policy: n}, "refused"}  # when policies applied
    }

Every job counts: submitted = finished + failed + terminated (by the queue's runnable timeout) +
stuck (not finished when the replay ended; ``never_started`` of them never started). A job that
never started (stuck or terminated) waits forever: ``wait_seconds.never_started`` counts them,
they sort last, and a percentile (or ``max``) that falls on one is null (``never`` in text);
``mean`` is over the ``started`` jobs (null if none). ``wait_seconds`` is null only for a share
sent no job.

Seconds are rounded to 0.1, instance-hours to 0.001, utilisation to 0.0001. Fields are only
ever added within a format version.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from quotactl.core.durations import human_duration
from quotactl.core.outputs import Output, ReportOutput
from quotactl.core.simulate import instance_hours
from quotactl.core.simulate.judged import JudgedSimulation
from quotactl.render.markdown import code_span
from quotactl.render.rules import (
    rules_after_markdown,
    rules_after_text,
    rules_json,
)
from quotactl.render.symbols import DASH, STRATEGIES, TIMES
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from quotactl.core.rules import RuleResult
    from quotactl.core.simulate import ShareResult, SimulationResult, WaitStats

FORMAT_VERSION = "1"


@view(JudgedSimulation, Output.JSON)
def show_json(run: JudgedSimulation, screen: Screen) -> None:
    screen.write(simulation_json(run.result, trace=run.trace, rules=run.rules) + "\n")
    screen.json_written = True  # the document holds the rules' results


@view(JudgedSimulation, ReportOutput.MARKDOWN)
def show_markdown(run: JudgedSimulation, screen: Screen) -> None:
    screen.write(simulation_markdown(run.result, trace=run.trace))
    rules_after_markdown(screen, run.rules)


@view(JudgedSimulation, Output.TEXT)
def show_text(run: JudgedSimulation, screen: Screen) -> None:
    console = screen.console()
    print_simulation(console, run.result, trace=run.trace)
    rules_after_text(console, run.rules)


def simulation_json(
    result: SimulationResult,
    *,
    trace: str,
    config: str | None = None,
    rules: Sequence[RuleResult] = (),
) -> str:
    """The JSON document of one simulation."""
    document = {
        "format_version": FORMAT_VERSION,
        "trace": trace,
        "jobs": result.jobs,
        "run": run_json(result, config, None),
        "baseline": None,
        "verdict": None,
        "comparison": None,
        "rules": rules_json(rules),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def print_simulation(console: Console, result: SimulationResult, *, trace: str) -> None:
    """The human report: a headline and two tables per queue."""
    console.print(headline(result, trace))
    if result.governed is not None:
        console.print(governed_line(result))
    for queue in result.queues:
        shares = [s for s in result.shares if s.queue == queue.queue]
        console.print()
        console.print(queue_line(queue.queue, queue.utilisation, queue.claimed))
        console.print(wait_table(shares))
        _stuck_notes(console, shares)
        console.print()
        console.print(hours_table(shares))


def governed_line(result: SimulationResult) -> Text:
    """``Policies applied: 12 actions (aging 9, schedule:weekend 3); 4 jobs refused``."""
    data = governed_json(result)
    by_policy = data["by_policy"]
    assert isinstance(by_policy, dict)
    parts = ", ".join(f"{policy} {n}" for policy, n in by_policy.items())
    line = f"Policies applied: {_plural(len(result.governed or ()), 'action')}"
    if parts:
        line += f" ({parts})"
    if data["refused"]:
        line += f"; {_plural(int(str(data['refused'])), 'job')} refused (share disabled)"
    return Text(line)


def simulation_markdown(result: SimulationResult, *, trace: str) -> str:
    """One simulation as a markdown table (for a PR comment or a wiki page)."""
    name = code_span(trace)
    lines = [f"### quotactl simulate: {name}", "", headline(result, name).plain, ""]
    lines += [
        "| share | sharing | jobs done | terminated | never started | wait mean | p95 | own"
        " | borrowed | lent | preemptions | lost |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in result.shares:
        mean, _, p95, _ = _waits(s.wait)
        lines.append(
            f"| `{s.queue}/{s.share}` | {STRATEGIES.get(s.strategy, s.strategy)}"
            f" | {s.finished:,} | {s.terminated:,} | {s.never_started:,} | {mean} | {p95}"
            f" | {instance_hours(s.own_hours)}"
            f" | {instance_hours(s.borrowed_hours)} | {instance_hours(s.lent_hours)}"
            f" | {s.preemptions:,} | {instance_hours(s.preempted_hours)} |"
        )
    lines.append("")
    for q in result.queues:
        used = f"{q.utilisation:.0%}" if q.utilisation is not None else "n/a"
        lines.append(f"Queue `{q.queue}`: {used} of claimed capacity used.")
    lines.append("")
    return "\n".join(lines)


def headline(result: SimulationResult, trace: str) -> Text:
    queues = ", ".join(q.queue for q in result.queues)
    where = f"queue {queues}" if len(result.queues) == 1 else f"queues {queues}"
    return Text.assemble(
        ("Simulated ", "bold"),
        (_plural(result.jobs, "job"), "bold"),
        f" from {trace} on {where}: submissions over {human_duration(result.window_seconds)},"
        f" last job done after {human_duration(result.end_seconds)}.",
    )


def queue_line(queue: str, utilisation: float | None, claimed: dict[str, int]) -> Text:
    capacity = ", ".join(f"{n} {TIMES} {t}" for t, n in claimed.items()) or "nothing claimed"
    used = f"{utilisation:.0%}" if utilisation is not None else "n/a"
    return Text.assemble(
        ("Queue ", "bold"),
        (queue, "bold"),
        f": {used} of claimed capacity used ({capacity})",
    )


def titled_table(title: str) -> Table:
    """The borderless table, titled on its left, that every simulate view prints."""
    return Table(
        title=Text(title, style="bold"),
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold",
    )


def wait_table(shares: list[ShareResult]) -> Table:
    table = titled_table("Jobs and waits (first start - submit)")
    table.add_column("share", overflow="fold")
    table.add_column("sharing", no_wrap=True)
    for header in ("jobs done", "not run", "wait mean", "p50", "p95", "max"):
        table.add_column(header, justify="right", no_wrap=True)
    for s in shares:
        waits = _waits(s.wait)
        table.add_row(
            s.share,
            STRATEGIES.get(s.strategy, s.strategy),
            f"{s.finished:,}",
            f"{s.not_run:,}",
            *waits,
        )
    if any(s.not_run for s in shares):
        table.caption = Text(
            "not run: never started (terminated by the queue's runnable timeout, or still"
            " waiting at the replay's horizon); such a job waits forever (never); the mean is"
            " over the jobs that started",
            style="dim",
        )
        table.caption_justify = "left"
    return table


def hours_table(shares: list[ShareResult]) -> Table:
    table = titled_table("Instance-hours and preemptions")
    table.caption = Text(
        "own: within the share's limit; borrowed: beyond it, on idle capacity of lending"
        " shares; lent: borrowed by others from this share; lost: run by preempted attempts",
        style="dim",
    )
    table.caption_justify = "left"
    table.add_column("share", overflow="fold")
    for header in ("own", "borrowed", "lent", "preemptions", "lost"):
        table.add_column(header, justify="right", no_wrap=True)
    for s in shares:
        table.add_row(
            s.share,
            instance_hours(s.own_hours),
            instance_hours(s.borrowed_hours),
            instance_hours(s.lent_hours),
            f"{s.preemptions:,}",
            instance_hours(s.preempted_hours),
        )
    return table


def _waits(wait: WaitStats | None) -> tuple[str, str, str, str]:
    if wait is None:
        return (DASH, DASH, DASH, DASH)
    mean = DASH if wait.mean is None else human_duration(wait.mean)
    return (mean, wait_text(wait.p50), wait_text(wait.p95), wait_text(wait.max))


def wait_text(seconds: float) -> str:
    """A wait as text: ``never`` for a job that never started."""
    return "never" if math.isinf(seconds) else human_duration(seconds)


def wait_json(seconds: float | None) -> float | None:
    """A wait in JSON: null for a job that never started."""
    return None if seconds is None or math.isinf(seconds) else round(seconds, 1)


def _stuck_notes(console: Console, shares: list[ShareResult]) -> None:
    for s in shares:
        if s.refused:
            console.print(
                Text(
                    f"  {s.share}: {_plural(s.refused, 'job')} refused (sent while a policy"
                    " had the share disabled, as AWS refuses them; in no other count)",
                    style="yellow",
                )
            )
        if s.wait is not None and s.wait.never_started and s.wait.mean is not None:
            console.print(
                Text(
                    f"  {s.share}: wait mean over the {s.wait.started:,} jobs that started;"
                    f" {_plural(s.wait.never_started, 'job')} never did",
                    style="yellow",
                )
            )
        if s.terminated:
            console.print(
                Text(
                    f"  {s.share}: {_plural(s.terminated, 'job')} terminated by the queue's"
                    " runnable timeout without running (they can never run on this share)",
                    style="yellow",
                )
            )
        if not s.stuck:
            continue
        why = (
            f", {s.misconfigured} of them misconfigured (they can never run and block the"
            " share, as on AWS)"
            if s.misconfigured
            else ""
        )
        console.print(
            Text(f"  {s.share}: {_plural(s.stuck, 'job')} never finished{why}", style="yellow")
        )


def run_json(
    result: SimulationResult, config: str | None, override: str | None
) -> dict[str, object]:
    """One run's part of the JSON document (``run`` and ``baseline``)."""
    return {
        "config": config,
        "strategy_override": override,
        "window_seconds": round(result.window_seconds, 1),
        "end_seconds": round(result.end_seconds, 1),
        "utilisation": ratio(result.utilisation),
        "queues": [
            {
                "queue": q.queue,
                "claimed": q.claimed,
                "used_instance_hours": round(q.used_hours, 3),
                "claimed_instance_hours": round(q.claimed_hours, 3),
                "utilisation": ratio(q.utilisation),
            }
            for q in result.queues
        ],
        "shares": [_share(s) for s in result.shares],
    } | ({} if result.governed is None else {"governed": governed_json(result)})


def governed_json(result: SimulationResult) -> dict[str, object]:
    """What the policies did in a governed run: actions per policy, and each action."""
    taken = result.governed or ()
    by_policy: dict[str, int] = {}
    for item in taken:
        by_policy[item.action.policy] = by_policy.get(item.action.policy, 0) + 1
    return {
        "actions": len(taken),
        "by_policy": dict(sorted(by_policy.items())),
        "refused": sum(s.refused or 0 for s in result.shares),
    }


def _share(s: ShareResult) -> dict[str, object]:
    wait = None
    if s.wait is not None:
        wait = {
            "started": s.wait.started,
            "mean": wait_json(s.wait.mean),
            "p50": wait_json(s.wait.p50),
            "p95": wait_json(s.wait.p95),
            "max": wait_json(s.wait.max),
            "never_started": s.wait.never_started,
        }
    return {
        "queue": s.queue,
        "share": s.share,
        "team": s.team,
        "strategy": s.strategy,
        "jobs": {
            "submitted": s.submitted,
            "finished": s.finished,
            "stuck": s.stuck,
            "misconfigured": s.misconfigured,
            "failed": s.failed,
            "terminated": s.terminated,
            "never_started": s.never_started,
        }
        | ({} if s.refused is None else {"refused": s.refused}),
        "wait_seconds": wait,
        "instance_hours": {
            "own": round(s.own_hours, 3),
            "borrowed": round(s.borrowed_hours, 3),
            "lent": round(s.lent_hours, 3),
        },
        "preemptions": {
            "count": s.preemptions,
            "discarded_instance_hours": round(s.preempted_hours, 3),
        },
    }


def ratio(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
