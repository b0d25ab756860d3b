"""The values ``usage`` computes: rows per share (or team) and instance type, for the whole
window and for each period. Renderers (text, JSON, CSV, markdown, a report) read these."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from quotactl.core.govern.readback import BudgetRow


class By(StrEnum):
    """What a row is: one share, or one team across its shares and queues."""

    SHARE = "share"
    TEAM = "team"


class Every(StrEnum):
    """The periods of ``--every``: UTC days, or ISO weeks (Monday 00:00 UTC onwards)."""

    DAY = "day"
    WEEK = "week"


@dataclass(frozen=True)
class Waits:
    """Waits (first start - submission) of the jobs submitted in the period, in seconds
    (nearest-rank percentiles; None when no such job has started)."""

    p50: float | None = None
    p95: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class UsageRow:
    """One share (``queue`` and ``share`` set) or one team (both None) and one instance type.

    Capacity figures are instance-hours; ``cost``, ``cost_borrowed`` and ``credit_lent`` are
    None without prices (or without a price for the instance type)."""

    queue: str | None
    share: str | None
    team: str | None
    instance_type: str
    entitled: float
    used: float
    own: float
    borrowed: float
    lent: float
    idle: float
    reserved_unused: float
    wait: Waits
    jobs: int
    preemptions: int
    work_lost: float
    guarantee_miss_hours: float
    longest_miss_seconds: float
    cost: float | None = None
    cost_borrowed: float | None = None
    credit_lent: float | None = None


@dataclass(frozen=True)
class PeriodUsage:
    """The rows of one period (a UTC day or ISO week, cut to the window)."""

    start: datetime
    end: datetime
    rows: tuple[UsageRow, ...]


@dataclass(frozen=True)
class SettingsGap:
    """A stretch ``[start, end)`` of the window in which share ``queue/share`` had no settings
    record: its figures there use the configuration's settings (with its windows)."""

    queue: str
    share: str
    start: datetime
    end: datetime


@dataclass(frozen=True)
class UsageReport:
    """Everything ``usage`` reports: the window ``[start, end)``, its rows, and the periods'
    rows with ``--every`` (empty without). ``unpriced`` names instance types with use but no
    price in ``--prices``."""

    start: datetime
    end: datetime
    by: By
    rows: tuple[UsageRow, ...]
    periods: tuple[PeriodUsage, ...] = ()
    every: Every | None = None
    priced: bool = False
    grace: float = 300.0
    unpriced: tuple[str, ...] = ()
    budgets: tuple[BudgetRow, ...] = ()
    """Each budgeted team's figures in its budget's period at ``end`` (hours counted, as the
    governor counts them, of the hours allowed)."""
    settings_from_config: tuple[SettingsGap, ...] | None = None
    """Where settings records were read (``--history``): the stretches that had none, so used
    the configuration's; None when none were looked for (the live account)."""


@dataclass(frozen=True)
class UsageRun:
    """``usage``'s report as its command shows it: ``report`` (its periods drawn by
    ``--report``'s page) and whether its periods are shown on stdout too (``--every`` asked
    for them; ``--report`` alone adds them for its page only)."""

    report: UsageReport
    periods_shown: bool = True

    @property
    def shown(self) -> UsageReport:
        """The report as stdout shows it."""
        if self.periods_shown:
            return self.report
        return replace(self.report, periods=(), every=None)
