"""Views of a comparison (``simulate --compare`` / ``--baseline reserve``): text, markdown, JSON.

The JSON document is the one of ``quotactl/render/simulate.py`` with ``run`` (PATH, the
configuration under review), ``baseline`` (the reference: OTHER_PATH, or every share RESERVE),
the ``verdict`` and ``comparison`` filled in. COMPARISON, format version 1::

    {
      "against": "config" | "reserve",
      "before": "configs-main/" | "every share RESERVE",
      "after": "configs/",
      "gains": ["training/nlp"], "loses": ["training/cv"],
      "added": [], "removed": ["training/legacy"],
      "queues": [{"queue", "change": "kept" | "added" | "removed",
                  "utilisation": {"before": 0.41 | null, "after": 0.57 | null}}],
      "shares": [{"queue", "share", "team",
                  "outcome": "gains" | "loses" | "unchanged" | "added" | "removed",
                  "reason": null | "p95 wait 2.0 h → 10 min",
                  "jobs_not_replayed": 0,      # rows of an added/removed share one side lacks
                  "jobs_finished": PAIR, "jobs_never_started": PAIR, "jobs_terminated": PAIR,
                  "wait_mean_seconds": PAIR, "wait_p95_seconds": PAIR,
                  "preemptions": PAIR, "work_lost_instance_hours": PAIR,
                  "borrowed_instance_hours": PAIR, "lent_instance_hours": PAIR}]
    }
    PAIR = {"before": number | null, "after": number | null}   # null: absent, or never

A wait is null where it falls on a job that never started (its wait is infinite: ``never`` in
text); ``jobs_never_started`` and ``jobs_terminated`` say how many such jobs each side has.

Rounding as in the simulation document.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from rich.text import Text

from quotactl.core.durations import human_duration
from quotactl.core.outputs import Output, ReportOutput
from quotactl.core.simulate import ShareVerdict, instance_hours
from quotactl.core.simulate.judged import JudgedComparison
from quotactl.render.markdown import code_span
from quotactl.render.mermaid import wait_unit, xychart
from quotactl.render.rules import (
    rules_after_markdown,
    rules_after_text,
    rules_json,
)
from quotactl.render.simulate import (
    FORMAT_VERSION,
    ratio,
    run_json,
    titled_table,
    wait_text,
)
from quotactl.render.symbols import ARROW, DASH, TIMES
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rich.console import Console
    from rich.table import Table

    from quotactl.core.rules import RuleResult
    from quotactl.core.simulate import Comparison, QueueChange, ShareChange, ShareResult

STYLES = {
    ShareVerdict.GAINS: "green",
    ShareVerdict.LOSES: "red",
    ShareVerdict.UNCHANGED: "",
    ShareVerdict.ADDED: "cyan",
    ShareVerdict.REMOVED: "magenta",
}
MARKDOWN_MAX_SHARES = 100
"""Rows of the markdown table; GitHub refuses comments over 65,536 characters."""
MARKDOWN_CHART_SHARES = 20
"""Bars of the markdown chart of p95 waits: more would not be read."""


@view(JudgedComparison, Output.JSON)
def show_json(run: JudgedComparison, screen: Screen) -> None:
    screen.write(comparison_json(run.comparison, trace=run.trace, rules=run.rules) + "\n")
    screen.json_written = True  # the document holds the rules' results


@view(JudgedComparison, ReportOutput.MARKDOWN)
def show_markdown(run: JudgedComparison, screen: Screen) -> None:
    screen.write(comparison_markdown(run.comparison, trace=run.trace))
    rules_after_markdown(screen, run.rules)


@view(JudgedComparison, Output.TEXT)
def show_text(run: JudgedComparison, screen: Screen) -> None:
    console = screen.console()
    print_comparison(console, run.comparison, trace=run.trace)
    rules_after_text(console, run.rules)


def comparison_json(comparison: Comparison, *, trace: str, rules: Sequence[RuleResult] = ()) -> str:
    document = comparison_document(comparison, trace=trace, rules=rules)
    return json.dumps(document, indent=2, ensure_ascii=False)


def comparison_document(
    comparison: Comparison, *, trace: str, rules: Sequence[RuleResult] = ()
) -> dict[str, object]:
    """The comparison's JSON document as a value (what ``comparison_json`` prints)."""
    before, after = comparison.before, comparison.after
    return {
        "format_version": FORMAT_VERSION,
        "trace": trace,
        "jobs": comparison.trace_jobs,
        "run": run_json(after.result, after.side.label, after.side.override),
        "baseline": run_json(before.result, before.side.label, before.side.override),
        "verdict": comparison.verdict,
        "comparison": {
            "against": "reserve" if comparison.against_reserve else "config",
            "before": before.side.label,
            "after": after.side.label,
            **{o.value: [_name(s) for s in comparison.by_outcome(o)] for o in _LISTED},
            "queues": [
                {
                    "queue": q.queue,
                    "change": "kept" if q.before and q.after else "added" if q.after else "removed",
                    "utilisation": {
                        "before": ratio(q.before.utilisation) if q.before else None,
                        "after": ratio(q.after.utilisation) if q.after else None,
                    },
                }
                for q in comparison.queues
            ],
            "shares": [_share_json(s) for s in comparison.shares],
        },
        "rules": rules_json(rules),
    }


_LISTED = (ShareVerdict.GAINS, ShareVerdict.LOSES, ShareVerdict.ADDED, ShareVerdict.REMOVED)
_FIGURES: tuple[tuple[str, Callable[[ShareResult], float | None], int], ...] = (
    ("jobs_finished", lambda r: r.finished, 0),
    ("jobs_never_started", lambda r: r.never_started, 0),
    ("jobs_terminated", lambda r: r.terminated, 0),
    ("wait_mean_seconds", lambda r: _finite(r.wait.mean) if r.wait else None, 1),
    ("wait_p95_seconds", lambda r: _finite(r.wait.p95) if r.wait else None, 1),
    ("preemptions", lambda r: r.preemptions, 0),
    ("work_lost_instance_hours", lambda r: r.preempted_hours, 3),
    ("borrowed_instance_hours", lambda r: r.borrowed_hours, 3),
    ("lent_instance_hours", lambda r: r.lent_hours, 3),
)


def _share_json(s: ShareChange) -> dict[str, object]:
    document: dict[str, object] = {
        "queue": s.queue,
        "share": s.share,
        "team": s.team,
        "outcome": s.outcome.value,
        "reason": s.reason,
        "jobs_not_replayed": s.not_replayed,
    }
    for key, figure, digits in _FIGURES:
        document[key] = {
            "before": _rounded(figure(s.before), digits) if s.before else None,
            "after": _rounded(figure(s.after), digits) if s.after else None,
        }
    return document


def _finite(value: float | None) -> float | None:
    """A wait in JSON: null for a job that never started (``wait_p95_never`` says so)."""
    return None if value is None or math.isinf(value) else value


def _rounded(value: float | None, digits: int) -> float | int | None:
    if value is None:
        return None
    return round(value, digits) if digits else int(value)


def _name(s: ShareChange) -> str:
    return f"{s.queue}/{s.share}"


# -- text ---------------------------------------------------------------------------------


def print_comparison(console: Console, comparison: Comparison, *, trace: str) -> None:
    """Headline, per queue the before → after tables, then the verdict."""
    console.print(headline(comparison, trace))
    for queue in comparison.queues:
        shares = [s for s in comparison.shares if s.queue == queue.queue]
        console.print()
        console.print(queue_line(queue))
        console.print(wait_table(shares))
        console.print()
        console.print(hours_table(shares))
        for s in shares:
            if s.not_replayed:
                side = "the new" if s.outcome is ShareVerdict.REMOVED else "the reference"
                console.print(
                    Text(
                        f"  {s.share}: {s.not_replayed:,} jobs of the trace have no share in"
                        f" {side} configuration and were not replayed there",
                        style="yellow",
                    )
                )
    console.print()
    console.print(Text.assemble(("Verdict: ", "bold"), comparison.verdict))


def queue_line(queue: QueueChange) -> Text:
    """The queue's headline: its utilisation before and after, and what its shares claim."""
    old = queue.before.utilisation if queue.before else None
    new = queue.after.utilisation if queue.after else None
    either = queue.after or queue.before
    claimed = either.claimed if either else {}
    capacity = ", ".join(f"{n} {TIMES} {t}" for t, n in claimed.items()) or "nothing claimed"
    return Text.assemble(
        ("Queue ", "bold"),
        (queue.queue, "bold"),
        f": utilisation {_percent(old)} {ARROW} {_percent(new)} ({capacity})",
    )


def headline(comparison: Comparison, trace: str) -> Text:
    before, after = comparison.before, comparison.after
    return Text.assemble(
        ("Compared ", "bold"),
        (after.side.label, "bold"),
        " against ",
        (before.side.label, "bold"),
        f" on {comparison.trace_jobs:,} jobs from {trace}: submissions over"
        f" {human_duration(after.result.window_seconds)}.",
    )


def wait_table(shares: list[ShareChange]) -> Table:
    table = titled_table(f"Waits (first start - submit), before {ARROW} after")
    table.add_column("share", overflow="fold")
    table.add_column("outcome", no_wrap=True)
    for header in ("p95 wait", "mean wait", "jobs done", "not run"):
        table.add_column(header, justify="right", no_wrap=True)
    for s in shares:
        table.add_row(
            s.share,
            Text(s.outcome.value, style=STYLES[s.outcome]),
            _pair(s, lambda r: _wait(r, "p95")),
            _pair(s, lambda r: _wait(r, "mean")),
            _pair(s, lambda r: f"{r.finished:,}"),
            _pair(s, lambda r: f"{r.not_run:,}"),
        )
    if any(r.not_run for s in shares for r in (s.before, s.after) if r is not None):
        table.caption = Text(
            "not run: jobs that never started (terminated by the queue's runnable timeout, or"
            " still waiting at the replay's horizon); they wait forever (never), and the mean"
            " is over the jobs that started",
            style="dim",
        )
        table.caption_justify = "left"
    return table


def hours_table(shares: list[ShareChange]) -> Table:
    table = titled_table(f"Preemptions and instance-hours, before {ARROW} after")
    table.add_column("share", overflow="fold")
    for header in ("preemptions", "work lost", "borrowed", "lent"):
        table.add_column(header, justify="right", no_wrap=True)
    for s in shares:
        table.add_row(
            s.share,
            _pair(s, lambda r: f"{r.preemptions:,}"),
            _pair(s, lambda r: instance_hours(r.preempted_hours)),
            _pair(s, lambda r: instance_hours(r.borrowed_hours)),
            _pair(s, lambda r: instance_hours(r.lent_hours)),
        )
    return table


def _pair(s: ShareChange, show: Callable[[ShareResult], str]) -> str:
    before = show(s.before) if s.before else DASH
    after = show(s.after) if s.after else DASH
    return f"{before} {ARROW} {after}"


def _wait(result: ShareResult, which: str) -> str:
    wait = result.wait
    if wait is None:
        return DASH
    if which == "p95":
        return wait_text(wait.p95)
    return "never" if wait.mean is None else human_duration(wait.mean)


def _percent(value: float | None) -> str:
    return f"{value:.0%}" if value is not None else "n/a"


# -- markdown -----------------------------------------------------------------------------


def comparison_markdown(comparison: Comparison, *, trace: str) -> str:
    """A PR comment: the verdict first, then one before → after row per share."""
    before, after = comparison.before, comparison.after
    lines = [
        f"### quotactl what-if: {code_span(after.side.label)} against"
        f" {code_span(before.side.label)}",
        "",
        f"Replayed {comparison.trace_jobs:,} jobs from {code_span(trace)} (submissions over"
        f" {human_duration(after.result.window_seconds)}) on both configurations.",
        "",
        f"**Verdict:** {comparison.verdict}",
        "",
        "| share | outcome | p95 wait | mean wait | jobs done | not run | preemptions"
        " | work lost (inst-h) | borrowed (inst-h) | lent (inst-h) |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for s in comparison.shares[:MARKDOWN_MAX_SHARES]:
        outcome = (
            f"**{s.outcome.value}**" if s.outcome is not ShareVerdict.UNCHANGED else "unchanged"
        )
        lines.append(
            f"| `{_name(s)}` | {outcome}"
            f" | {_pair(s, lambda r: _wait(r, 'p95'))}"
            f" | {_pair(s, lambda r: _wait(r, 'mean'))}"
            f" | {_pair(s, lambda r: f'{r.finished:,}')}"
            f" | {_pair(s, lambda r: f'{r.not_run:,}')}"
            f" | {_pair(s, lambda r: f'{r.preemptions:,}')}"
            f" | {_pair(s, lambda r: instance_hours(r.preempted_hours))}"
            f" | {_pair(s, lambda r: instance_hours(r.borrowed_hours))}"
            f" | {_pair(s, lambda r: instance_hours(r.lent_hours))} |"
        )
    hidden = len(comparison.shares) - MARKDOWN_MAX_SHARES
    if hidden > 0:
        more = f"… and {hidden} more shares (see `quotactl simulate -o json`)"
        lines.append(f"| {more} | | | | | | | | | |")
    lines.append("")
    for q in comparison.queues:
        old = q.before.utilisation if q.before else None
        new = q.after.utilisation if q.after else None
        lines.append(f"Queue `{q.queue}`: utilisation {_percent(old)} {ARROW} {_percent(new)}.")
    lines.append("")
    lines += _wait_chart(comparison.shares)
    return "\n".join(lines)


def _wait_chart(shares: Sequence[ShareChange]) -> list[str]:
    """The p95 waits before (bars) and after (line), for the shares that waited longest."""
    waited = [s for s in shares if (s.before and s.before.wait) or (s.after and s.after.wait)]
    if not waited:
        return []
    shown = sorted(waited, key=_longest_p95, reverse=True)[:MARKDOWN_CHART_SHARES]
    shown.sort(key=lambda s: shares.index(s))
    before = [_p95(s.before) for s in shown]
    after = [_p95(s.after) for s in shown]
    finite = [v for v in (*before, *after) if not math.isinf(v)]
    never = ""
    if len(finite) < len(before) + len(after):  # a never-started job's wait: the top
        top = max(finite, default=0.0) * 1.25 or 3600.0
        before = [top if math.isinf(v) else v for v in before]
        after = [top if math.isinf(v) else v for v in after]
        never = ", never (a job never started) drawn at the top"
    unit, seconds = wait_unit([*before, *after])
    which = "" if len(shown) == len(waited) else f" ({len(shown)} longest of {len(waited)})"
    chart = xychart(
        f"p95 wait per share{which}: before (bars), after (line){never}",
        [s.share if len({x.queue for x in shown}) == 1 else _name(s) for s in shown],
        f"p95 wait ({unit})",
        [v / seconds for v in before],
        [v / seconds for v in after],
    )
    return [*chart, ""]


def _p95(result: ShareResult | None) -> float:
    return result.wait.p95 if result and result.wait else 0.0


def _longest_p95(s: ShareChange) -> float:
    return max(_p95(s.before), _p95(s.after))
