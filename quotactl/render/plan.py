"""Views of a plan: human text (``+ ~ -/+ -`` blocks), JSON (the plan document), markdown.

The text view is built as rich ``Text`` (never markup strings: field paths such as
``capacity[ml.g5.xlarge]`` would read as markup), so colour is only ever a style.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC
from typing import TYPE_CHECKING

from rich.text import Text

from quotactl.core.govern.changes import ALTERED, local_minute
from quotactl.core.outputs import ReportOutput
from quotactl.core.plan.disruption import DISRUPTING, counts, disrupted_jobs
from quotactl.core.plan.document import to_document
from quotactl.core.plan.model import Action, Impact, Plan
from quotactl.core.resources.attributes import flatten
from quotactl.core.rules import RuleReport
from quotactl.render.markdown import fenced
from quotactl.render.rules import rules_markdown, rules_text
from quotactl.render.symbols import ARROW, TIMES
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from datetime import datetime

    from rich.console import Console

    from quotactl.core.govern import PolicyState
    from quotactl.core.govern.changes import PolicyChange
    from quotactl.core.plan.model import Change
    from quotactl.core.resources.attributes import JSONValue

STYLES = {
    Action.CREATE: "green",
    Action.UPDATE: "yellow",
    Action.REPLACE: "magenta",
    Action.DELETE: "red",
}
HEADLINES = {
    Action.CREATE: "will be created",
    Action.UPDATE: "will be updated in place",
    Action.REPLACE: "must be replaced",
    Action.DELETE: "will be deleted",
}
MAX_JOBS_SHOWN = 10


def format_value(value: JSONValue) -> str:
    """How one attribute value reads in a plan: JSON spelling, ``(none)`` for absent."""
    if value is None:
        return "(none)"
    return json.dumps(value, ensure_ascii=False)


def summary_line(plan: Plan) -> str:
    counts = plan.counts()
    parts = [f"{counts[a]} to {a.value}" for a in counts]
    return f"Plan: {', '.join(parts)}."


def policy_lines(policies: PolicyState) -> list[str]:
    """The policies section: the windows and budgets in force, and the next change."""
    lines = [f"Policies at {_minute(policies.at)}:"]
    for window in policies.windows:
        lines.append(f"  {window.address}: window {window.window} in force")
    if not policies.windows:
        lines.append("  no schedule window in force: every share has its own settings")
    for budget in policies.budgets:
        lines.append(
            f"  team {budget.team}: over its {budget.over} budget on {budget.instance_type} "
            f"({budget.used:g} of {budget.limit:g} instance-hours) until {_minute(budget.resets)}"
        )
    following = policies.next_change
    lines.append(
        f"  next window change: {_minute(following)}" if following else "  no window change ahead"
    )
    if policies.changes:
        lines.append("  this change to the policies:")
    for change in policies.changes:
        lines += policy_change_lines(change)
    return lines


def policy_change_lines(change: PolicyChange) -> list[str]:
    """A policy the plan adds, removes or alters: what, when it next takes effect, and its
    fields before -> after (an altered record that cannot be read back has none)."""
    head = f"    {change.address}: {change.policy} {change.action}"
    if change.next_start is not None and change.policy == "budget":
        head += f", next period from {_minute(change.next_start)}"
    elif change.next_start is not None:
        head += f", next in force {local_minute(change.next_start, change.timezone)}"
        if change.next_end is not None:
            head += f" until {local_minute(change.next_end, change.timezone)}"
    lines = [head]
    if change.action == ALTERED and not change.fields:
        lines.append("        (its record on the account is a digest: the fields cannot be shown)")
    width = max((len(f.field) for f in change.fields), default=0)
    for delta in change.fields:
        before = "(none)" if delta.before is None else delta.before
        after = "(none)" if delta.after is None else delta.after
        lines.append(f"        {delta.field + ':':<{width + 1}} {before} {ARROW} {after}")
    return lines


def _minute(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def _policies(plan: Plan, out: Text) -> None:
    if plan.policies is not None:
        out.append("\n".join(policy_lines(plan.policies)) + "\n\n")


def plan_text(plan: Plan) -> Text:
    """The whole human view of ``plan`` (ends with the ``Plan: ...`` line)."""
    out = Text()
    if plan.empty:
        _policies(plan, out)
        out.append("No changes.", style="bold")
        out.append(" Live resources match the configuration.\n")
        _settling(plan, out)
        _rules(plan, out)
        return out
    _policies(plan, out)
    out.append("quotactl will perform the following actions:\n\n")
    named: dict[str, str] = {}  # job id -> the address whose impact listed it first
    for change in plan.changes:
        _change_block(change, out, named)
        out.append("\n")
    _settling(plan, out)
    if plan.rules.results:
        out.append_text(rules_text(plan.rules.results))
        out.append("\n")
    out.append(summary_line(plan), style="bold")
    out.append("\n")
    line = disruption_line(plan)
    if line:
        out.append(line + "\n", style="bold red")
    return out


def _rules(plan: Plan, out: Text) -> None:
    if plan.rules.results:
        out.append("\n")
        out.append_text(rules_text(plan.rules.results))


def disruption_line(plan: Plan) -> str | None:
    """What apply's disruption guard will say of this plan, or None if it disrupts nothing."""
    disrupted = disrupted_jobs(plan)
    if not disrupted:
        return None
    found = counts(disrupted)
    how = ", ".join(f"{found[e.value]} {e.value}" for e in DISRUPTING if found[e.value])
    n = len(disrupted)
    return (
        f"Disruption: {n} job{'s' if n != 1 else ''} holding instances ({how});"
        f" apply refuses without --allow-disruption or --max-disruption {n}."
    )


def _settling(plan: Plan, out: Text) -> None:
    if plan.settling:
        out.append(
            f"Still settling (apply waits for them): {', '.join(plan.settling)}\n\n",
            style="dim",
        )


def _change_block(change: Change, out: Text, named: dict[str, str]) -> None:
    style = STYLES[change.action]
    out.append(f"{change.action.symbol} {change.address}", style=f"bold {style}")
    out.append(f" {HEADLINES[change.action]}")
    if change.previous_address:
        out.append(f" (from {change.previous_address})")
    if change.reason:
        out.append(f" ({change.reason})")
    out.append("\n")
    rows = _rows(change)
    width = max((len(path) for path, _ in rows), default=0)
    for path, value in rows:
        out.append(f"    {path + ':':<{width + 1}} ")
        out.append(value)
        out.append("\n")
    for impact in change.impact:
        _impact(impact, out, change.address, named)


def _rows(change: Change) -> list[tuple[str, Text]]:
    if change.action is Action.CREATE:
        attrs = change.after_attributes or {}
        return [(p, Text(format_value(v))) for p, v in flatten(attrs).items() if v is not None]
    rows: list[tuple[str, Text]] = []
    for field in change.fields:
        value = Text(format_value(field.before), style="red")
        value.append(f" {ARROW} ")
        value.append(format_value(field.after), style="green")
        if field.forces_replacement:
            value.append(" (forces replacement)", style="magenta")
        rows.append((field.path, value))
    return rows


def _impact(impact: Impact, out: Text, address: str, named: dict[str, str]) -> None:
    """The impact and its jobs, running ones first; a job listed under an earlier change is
    not listed again, the line says where it is."""
    out.append(f"    ! {impact.message}\n", style="bold red")
    fresh = [j for j in impact.jobs if j.job_id not in named]
    elsewhere = sorted({named[j.job_id] for j in impact.jobs if j.job_id in named})
    for job in fresh[:MAX_JOBS_SHOWN]:
        instances = ", ".join(f"{n}{TIMES} {t}" for t, n in sorted(job.instances.items()))
        share = f"share {job.share}, " if job.share else ""
        out.append(f"        {job.name} ({share}{job.status}, {instances or 'no instances'})\n")
    hidden = len(fresh) - MAX_JOBS_SHOWN
    if hidden > 0:
        out.append(f"        … and {hidden} more (see -o json)\n")
    repeated = len(impact.jobs) - len(fresh)
    if repeated:
        where = ", ".join(elsewhere)
        out.append(f"        ({repeated} job{'s' if repeated != 1 else ''} listed under {where})\n")
    for job in fresh:
        named[job.job_id] = address


def print_plan(plan: Plan, console: Console) -> None:
    console.print(plan_text(plan), end="", soft_wrap=True)


@view(Plan, ReportOutput.TEXT)
def show_plan(plan: Plan, screen: Screen) -> None:
    """The human view, on stdout."""
    print_plan(plan, screen.console())


@view(Plan, ReportOutput.JSON)
def show_plan_json(plan: Plan, screen: Screen) -> None:
    """The plan document; a failed rule adds no error document after it."""
    screen.write(plan_json(plan))
    screen.json_written = True


@view(Plan, ReportOutput.MARKDOWN)
def show_plan_markdown(plan: Plan, screen: Screen) -> None:
    """The PR comment."""
    screen.write(plan_markdown(plan))


def plan_json(plan: Plan) -> str:
    """The ``-o json`` view: the plan document (the same shape ``plan --out`` writes)."""
    return json.dumps(to_document(plan), indent=2, ensure_ascii=False) + "\n"


MARKDOWN_INLINE_LINES = 40
MARKDOWN_MAX_IMPACTS = 20
MARKDOWN_MAX_CHARS = 60_000  # GitHub refuses comments over 65,536 characters


def _bullet(line: str) -> str:
    """A policies line as a markdown bullet, nested as the text view indents it."""
    depth = {4: 1, 8: 2}.get(len(line) - len(line.lstrip()), 0)
    return "  " * depth + "- " + line.strip()


def plan_markdown(plan: Plan) -> str:
    """A PR comment: summary, runtime impact up front, the full plan (collapsed when long)."""
    lines = [f"### quotactl plan for stack `{plan.stack}`", ""]
    if plan.policies is not None:
        first, *rest = policy_lines(plan.policies)
        lines += [f"**{first}**", "", *(_bullet(line) for line in rest), ""]
    if plan.empty:
        lines += ["**No changes.** Live resources match the configuration.", ""]
        return "\n".join([*lines, *rules_markdown(plan.rules.results)])
    lines += [f"**{summary_line(plan)}**", ""]
    refused = disruption_line(plan)
    if refused:
        lines += ["> [!CAUTION]", f"> **{refused}**", ""]
    impacts = [(c.address, i) for c in plan.changes for i in c.impact]
    if impacts:
        lines += ["> [!WARNING]", "> **Runtime impact**", ">"]
        for address, impact in impacts[:MARKDOWN_MAX_IMPACTS]:
            names = ", ".join(f"`{j.name}`" for j in impact.jobs[:MAX_JOBS_SHOWN])
            more = len(impact.jobs) - MAX_JOBS_SHOWN
            if more > 0:
                names += f" and {more} more"
            lines.append(f"> - `{address}`: {impact.message}: {names}")
        if len(impacts) > MARKDOWN_MAX_IMPACTS:
            lines.append(f"> - … and {len(impacts) - MARKDOWN_MAX_IMPACTS} more in the plan below")
        lines.append("")
    lines += rules_markdown(plan.rules.results)
    body = plan_text(replace(plan, rules=RuleReport(), policies=None)).plain.rstrip("\n")
    if len(body) > MARKDOWN_MAX_CHARS:
        body = body[:MARKDOWN_MAX_CHARS].rsplit("\n", 1)[0] + "\n… (truncated: run quotactl plan)"
    block = fenced(body, "diff")  # a value holding ``` cannot end the block
    if body.count("\n") + 1 > MARKDOWN_INLINE_LINES:
        lines += [f"<details><summary>Show the plan ({len(plan.changes)} changes)</summary>", ""]
        lines += [*block, "", "</details>"]
    else:
        lines += block
    lines += ["", f"<sub>Fingerprint of the live state read: `{plan.fingerprint}`</sub>", ""]
    return "\n".join(lines)
