"""One desired state in time: the settings every share should have at an instant.

``desired_at(desired, now, usage)`` takes the configuration's desired state, applies the
window in force on each share at ``now`` (the first of its windows that matches), then the
budget states from ``usage``: over a ``soft`` budget on an instance type, every share of the
team holding that type stops borrowing (lend_and_borrow becomes lend); over a ``hard`` one it
is also disabled (a hard disable wins over a window's ``enabled``). Priorities are never
touched. ``plan`` and ``apply`` use what it returns, so an apply never undoes a policy in force.

``usage`` maps a team to the instance-hours it has counted in the current period of its
budget, per instance type (``used`` or ``borrowed`` as its budget says); empty means none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.changes import PolicyChange
from quotactl.core.govern.usage import period_end
from quotactl.core.govern.windows import apply_window, next_change, window_in_force
from quotactl.core.resources.desired import UNLIMITED, Strategy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.resources.desired import Budget, DesiredState, ShareSpec


@dataclass(frozen=True)
class WindowInForce:
    """A share's window in force at an instant."""

    address: str
    window: str


@dataclass(frozen=True)
class BudgetOver:
    """A team over its budget on an instance type, until ``resets``."""

    team: str
    instance_type: str
    used: float
    limit: float
    over: str
    resets: datetime


@dataclass(frozen=True)
class PolicyState:
    """Which policies are in force at ``at``, and when the next window change is."""

    at: datetime
    windows: tuple[WindowInForce, ...] = ()
    budgets: tuple[BudgetOver, ...] = ()
    next_change: datetime | None = None
    scheduled: int = 0
    """How many windows the configuration declares (0: no schedule at all)."""
    changes: tuple[PolicyChange, ...] = ()
    """The windows, budgets and aging the plan adds, removes or alters (against the records
    on the account)."""

    def to_dict(self) -> dict[str, Any]:
        """The state as saved in a plan file and shown in JSON."""
        return {
            "at": _iso(self.at),
            "windows": [{"address": w.address, "window": w.window} for w in self.windows],
            "budgets": [
                {
                    "team": b.team,
                    "instance_type": b.instance_type,
                    "used": b.used,
                    "limit": b.limit,
                    "over": b.over,
                    "resets": _iso(b.resets),
                }
                for b in self.budgets
            ],
            "next_change": _iso(self.next_change) if self.next_change else None,
            "changes": [change.to_dict() for change in self.changes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicyState:
        """Read back what ``to_dict`` wrote (a saved plan's policies); ValueError if not."""
        windows = tuple(WindowInForce(str(w["address"]), str(w["window"])) for w in data["windows"])
        budgets = tuple(
            BudgetOver(
                str(b["team"]),
                str(b["instance_type"]),
                float(b["used"]),
                float(b["limit"]),
                str(b["over"]),
                _instant(b["resets"]),
            )
            for b in data["budgets"]
        )
        following = data.get("next_change")
        return cls(
            at=_instant(data["at"]),
            windows=windows,
            budgets=budgets,
            next_change=_instant(following) if following else None,
            changes=tuple(PolicyChange.from_dict(c) for c in data.get("changes") or ()),
        )

    def until(self) -> datetime | None:
        """When this state ends: the next window change or budget reset (None: never)."""
        ends = [b.resets for b in self.budgets]
        if self.next_change is not None:
            ends.append(self.next_change)
        return min(ends) if ends else None

    def holds_at(self, now: datetime) -> bool:
        """Whether the same policies are in force at ``now`` (a saved plan is stale when not:
        before the instant it was made for, or after the next change)."""
        until = self.until()
        return self.at <= now and (until is None or now < until)

    def key(self) -> dict[str, Any]:
        """What makes a saved plan stale when it changes: the windows and budget states in
        force (not the instant, nor the next change)."""
        data = self.to_dict()
        return {
            "windows": data["windows"],
            "budgets": [
                {k: b[k] for k in ("team", "instance_type", "over")} for b in data["budgets"]
            ],
        }


def _instant(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not an ISO 8601 instant")
    instant = datetime.fromisoformat(value)
    if instant.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone")
    return instant.astimezone(UTC)


def parse_instant(text: str) -> datetime:
    """An ISO 8601 instant (``2026-12-12T10:00Z``, ``2026-12-12T11:00+01:00``); a date alone
    is its midnight UTC, a time without a zone is UTC. ValueError when it is none."""
    value = text.strip()
    instant = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)
    return instant.replace(tzinfo=UTC) if instant.tzinfo is None else instant.astimezone(UTC)


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z")


def budgets_over(
    desired: DesiredState, now: datetime, usage: Mapping[str, Mapping[str, float]]
) -> tuple[BudgetOver, ...]:
    """Each (team, instance type) whose counted hours reached its budget."""
    found = []
    for team in desired.teams:
        budget: Budget | None = team.budget
        if budget is None:
            continue
        counted = usage.get(team.name, {})
        for instance_type, limit in budget.instance_hours.items():
            used = counted.get(instance_type, 0.0)
            if used >= limit:
                resets = period_end(budget.every, now)
                found.append(BudgetOver(team.name, instance_type, used, limit, budget.over, resets))
    return tuple(found)


def _with_budgets(share: ShareSpec, over: tuple[BudgetOver, ...]) -> ShareSpec:
    mine = [b for b in over if b.team == share.team and b.instance_type in share.capacity]
    if not mine:
        return share
    if share.strategy is Strategy.LEND_AND_BORROW:
        share = replace(share, strategy=Strategy.LEND, borrow_limit=UNLIMITED)
    if any(b.over == "hard" for b in mine):
        share = replace(share, enabled=False)
    return share


def desired_at(
    desired: DesiredState,
    now: datetime,
    usage: Mapping[str, Mapping[str, float]] | None = None,
) -> DesiredState:
    """The settings in force at ``now`` (aware): windows, then budgets from ``usage``."""
    over = budgets_over(desired, now, usage or {})
    shares = tuple(
        _with_budgets(apply_window(share, window_in_force(share, now)), over)
        for share in desired.shares
    )
    return replace(desired, shares=shares)


def policy_state(
    desired: DesiredState,
    now: datetime,
    usage: Mapping[str, Mapping[str, float]] | None = None,
) -> PolicyState:
    """The windows and budgets in force at ``now``, and the next window change."""
    windows = tuple(
        WindowInForce(share.address, window.name)
        for share in desired.shares
        if (window := window_in_force(share, now)) is not None
    )
    return PolicyState(
        at=now,
        windows=windows,
        budgets=budgets_over(desired, now, usage or {}),
        next_change=next_change(desired, now),
        scheduled=sum(len(share.schedule) for share in desired.shares),
    )


def governed(desired: DesiredState) -> bool:
    """Whether ``desired`` declares a policy that changes settings in time (a window or a
    budget): only then does a plan record and show its policies."""
    return any(share.schedule for share in desired.shares) or any(
        team.budget for team in desired.teams
    )
