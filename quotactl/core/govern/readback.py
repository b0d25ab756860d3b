"""What the governor left on the account, read back without the configuration.

A governor cycle tags each share of a budgeted team with ``quotactl:budget`` (the team's
figures: ``hard resets=2027-01-01T00:00:00Z ml.p5.48xlarge=2000/2000``) and each share it
changed with ``quotactl:governed`` (``<policy> until=<ISO>``). ``status``, ``job why``,
``usage``, ``doctor``, ``metrics serve`` and ``submit`` read both from the live shares: they
need no configuration, and show what is in force on the account, not what a config file says.

A restore is *overdue* when a share still carries ``quotactl:governed`` past its ``until``:
the governor that should have put the share back has not run (a dead governor).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.cycle import (
    BUDGET_TAG,
    GOVERNED_TAG,
    read_budget_tag,
    read_governed_tag,
)
from quotactl.core.resources.desired import TEAM_TAG

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from quotactl.core.jobs.live import LiveQueue


@dataclass(frozen=True)
class BudgetRow:
    """A team's budget on one instance type, as its shares' ``quotactl:budget`` tag says."""

    team: str
    instance_type: str
    over: str
    """``soft`` (stops borrowing) or ``hard`` (also disables the shares)."""
    used: float
    limit: float
    resets: datetime | None

    @property
    def ratio(self) -> float:
        """Hours counted over hours allowed (1.0: the budget is reached)."""
        return self.used / self.limit if self.limit > 0 else 0.0

    @property
    def exceeded(self) -> bool:
        return self.used >= self.limit

    @property
    def overshoot(self) -> float:
        """Hours counted beyond the budget (work queued or running when it was crossed)."""
        return max(0.0, self.used - self.limit)

    def to_dict(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "instance_type": self.instance_type,
            "over": self.over,
            "used": self.used,
            "limit": self.limit,
            "ratio": round(self.ratio, 4),
            "exceeded": self.exceeded,
            "overshoot": self.overshoot,
            "resets": _iso(self.resets),
        }


@dataclass(frozen=True)
class GovernedRow:
    """A share the governor changed: the policy that holds it and until when."""

    address: str
    """``share.QUEUE/NAME``."""
    policy: str
    """``schedule:NAME``, ``budget`` (or whatever policy the tag names)."""
    until: datetime | None
    enabled: bool
    overdue: bool
    """``until`` has passed and the share is still governed: its restore is overdue."""

    @property
    def budget(self) -> bool:
        return self.policy == "budget"

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "policy": self.policy,
            "until": _iso(self.until),
            "enabled": self.enabled,
            "overdue": self.overdue,
        }


@dataclass(frozen=True)
class Governance:
    """The budgets and governed shares found on the account at ``at``."""

    at: datetime | None = None
    budgets: tuple[BudgetRow, ...] = ()
    governed: tuple[GovernedRow, ...] = ()

    @property
    def overdue(self) -> tuple[GovernedRow, ...]:
        return tuple(row for row in self.governed if row.overdue)

    def governed_share(self, queue: str, share: str) -> GovernedRow | None:
        address = f"share.{queue}/{share}"
        return next((row for row in self.governed if row.address == address), None)

    def team_budgets(self, team: str | None) -> tuple[BudgetRow, ...]:
        return tuple(row for row in self.budgets if row.team == team)

    def __bool__(self) -> bool:
        return bool(self.budgets or self.governed)


def governance_of(queues: Iterable[LiveQueue], now: datetime) -> Governance:
    """Budgets (one row per team and instance type, the newest figures its shares carry) and
    governed shares, from the shares' tags."""
    budgets: dict[tuple[str, str], BudgetRow] = {}
    governed: list[GovernedRow] = []
    for queue in queues:
        enabled = {share.name: share.enabled for share in queue.shares}
        for name, tags in sorted(queue.share_tags.items()):
            for row in budget_rows(tags):
                key = (row.team, row.instance_type)
                seen = budgets.get(key)
                if seen is None or _newer(row, seen):
                    budgets[key] = row
            found = governed_row(f"share.{queue.name}/{name}", tags, now, enabled.get(name, True))
            if found is not None:
                governed.append(found)
    return Governance(
        at=now,
        budgets=tuple(budgets[key] for key in sorted(budgets)),
        governed=tuple(sorted(governed, key=lambda row: row.address)),
    )


def budget_rows(tags: Mapping[str, str]) -> list[BudgetRow]:
    """The rows of a share's ``quotactl:budget`` tag (none without the tag or a team)."""
    value, team = tags.get(BUDGET_TAG), tags.get(TEAM_TAG)
    figures = read_budget_tag(value) if value else None
    if figures is None or team is None:
        return []
    return [
        BudgetRow(team, name, figures.over, used, limit, figures.resets)
        for name, (used, limit) in sorted(figures.used.items())
    ]


def governed_row(
    address: str, tags: Mapping[str, str], now: datetime, enabled: bool = True
) -> GovernedRow | None:
    """A share's ``quotactl:governed`` tag read back (None without it)."""
    value = tags.get(GOVERNED_TAG)
    if not value:
        return None
    policy, until = read_governed_tag(value)
    return GovernedRow(address, policy, until, enabled, until is not None and until <= now)


def budget_refusal(tags: Mapping[str, str], enabled: bool) -> Sequence[BudgetRow]:
    """The exceeded hard budget rows that keep a share DISABLED (empty: it is not disabled by
    a budget)."""
    value = tags.get(GOVERNED_TAG)
    if enabled or not value or read_governed_tag(value)[0] != "budget":
        return []
    rows = budget_rows(tags)
    hard = [row for row in rows if row.over == "hard"]
    return [row for row in hard if row.exceeded] or hard


def _newer(row: BudgetRow, seen: BudgetRow) -> bool:
    """Whether ``row`` holds later figures than ``seen`` (a later period, or more counted)."""
    never = datetime.min.replace(tzinfo=UTC)
    return (row.resets or never, row.used) > (seen.resets or never, seen.used)


def _iso(instant: datetime | None) -> str | None:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if instant else None
