"""Views of ``govern``: each cycle's actions like a plan (what, why, which policy, until when,
and what became of it), drawn as each cycle ends."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.run import GovernRun
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from quotactl.core.govern.run import GovernCycle, Outcome


@view(GovernRun, Output.TEXT)
def show_run(run: GovernRun, screen: Screen) -> None:
    for number, cycle in enumerate(run):
        if number:
            screen.line()
        for line in cycle_lines(cycle):
            screen.line(line)
        screen.stdout.flush()


@view(GovernRun, Output.JSON)
def show_run_json(run: GovernRun, screen: Screen) -> None:
    """One document for ``--once``; with ``--every``, one document a line per cycle."""
    for cycle in run:
        document = {"format_version": "1", **cycle.to_dict()}
        if run.every is None:
            screen.write_json(document)
        else:
            screen.write(json.dumps(document) + "\n")
            screen.stdout.flush()
            screen.json_written = True


def cycle_lines(cycle: GovernCycle) -> list[str]:
    """A cycle as text: its heading, then each action with its fields, reason and result."""
    heading = f"Governor cycle at {_stamp(cycle.at)} (stack {cycle.stack})"
    if cycle.dry_run:
        heading += ", dry run: nothing is changed"
    if cycle.skipped is not None:
        return [f"{heading}: skipped: {cycle.skipped}"]
    lines = [f"{heading}:"]
    if not cycle.outcomes:
        lines.append("  No actions: every policy is in force as it should be.")
    for outcome in cycle.outcomes:
        lines.extend(_action_lines(outcome, cycle.dry_run))
    for drift in cycle.drift:
        lines.append(
            f"  drift (left to apply): {drift.address} {drift.field}: live "
            f"{_value(drift.live)}, configured {_value(drift.configured)}"
        )
    lines.extend(f"  error: {error}" for error in cycle.errors)
    return lines


def _action_lines(outcome: Outcome, dry_run: bool) -> list[str]:
    action = outcome.action
    until = f" until {_stamp(action.until)}" if action.until else ""
    lines = [f"  ~ {action.address}  [{action.policy}]{until}"]
    for name in action.after:
        before, after = action.before.get(name), action.after[name]
        target = action.target.get(name)
        held = f" (wanted {_value(target)}: held back, it would disrupt)" if target != after else ""
        lines.append(f"      {name}: {_value(before)} → {_value(after)}{held}")
    lines.append(f"      why: {action.reason}")
    if dry_run:
        lines.append("      would apply")
    elif outcome.error is not None:
        lines.append(f"      {outcome.result}: {outcome.error}")
    else:
        lines.append(f"      {outcome.result}")
    return lines


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in sorted(value.items())) + "}"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _stamp(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
