"""Views of the emulated account's commands: where its clock is, what was deleted."""

from __future__ import annotations

from datetime import UTC, datetime

from quotactl.core.durations import format_duration
from quotactl.core.local import ClockAdvanced, StateReset
from quotactl.core.outputs import Output
from quotactl.core.words import count_of
from quotactl.render.views import Screen, view


@view(ClockAdvanced, Output.TEXT)
def show_clock(moved: ClockAdvanced, screen: Screen) -> None:
    """``Clock at 2025-01-01T00:10:00Z (+10m); 3 job or resource changes``."""
    screen.line(
        f"Clock at {_stamp(moved.now)} (+{format_duration(moved.seconds)}); "
        f"{count_of(moved.changes, 'job or resource change')}"
    )
    if moved.cycles is not None:
        screen.line(
            f"{count_of(moved.cycles, 'governor cycle')}, "
            f"{count_of(moved.actions, 'policy action')}"
        )


@view(StateReset, Output.TEXT)
def show_reset(reset: StateReset, screen: Screen) -> None:
    if reset.deleted:
        screen.line(f"Deleted the emulator state {reset.state}")
    else:
        screen.line(f"No emulator state at {reset.state}; nothing to delete")
    if reset.variant is not None:
        screen.line(f"Created a new {reset.variant} emulated account at {reset.state}")
    if reset.at is not None:
        screen.line(f"Its clock starts at {_stamp(reset.at.timestamp())}")


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
