"""What the embedded emulated account's commands did: its clock moved, its state deleted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path


@dataclass(frozen=True)
class ClockAdvanced:
    """``local advance``: the clock moved ``seconds`` from ``before`` to ``now``, with
    ``changes`` job or resource changes on the way."""

    before: float
    now: float
    changes: int
    seconds: float
    cycles: int | None = None
    """With ``--govern``: the governor cycles run on the way (None: none was asked for)."""
    actions: int = 0
    """With ``--govern``: the actions those cycles took."""


@dataclass(frozen=True)
class StateReset:
    """``local reset``: the state file, whether there was one to delete, and the variant of
    the new account created in its place (None: none was created), and the instant its clock
    starts at (None: the time it was created)."""

    state: Path
    deleted: bool
    variant: str | None = None
    at: datetime | None = None
