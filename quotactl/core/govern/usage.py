"""What a budget counts: a team's instance-hours in the current period, per instance type.

A budget's period is a UTC calendar day, week (from Monday) or month. ``used`` is the
integral of the instances the team's jobs held (∫U); ``borrowed`` the integral of what they
held beyond the share's own capacity in force at each moment (∫max(0, U - L)), so a window that
raises a share's capacity raises what it may use without borrowing. Both sides feed it the
same intervals: the governor from the live account's jobs (and history ledgers), ``simulate``
from its replay.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from quotactl.core.govern.windows import apply_window, boundaries, window_in_force

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from quotactl.core.resources.desired import DesiredState, ShareSpec


@dataclass(frozen=True)
class Held:
    """Instances a job held in a share, from ``start`` to ``end`` (None: still holding)."""

    share: str
    """The share's address, ``share.QUEUE/NAME``."""
    instance_type: str
    count: int
    start: datetime
    end: datetime | None = None


def period_start(every: str, now: datetime) -> datetime:
    """When the UTC calendar period (``day``, ``week`` from Monday, ``month``) holding
    ``now`` began."""
    midnight = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if every == "day":
        return midnight
    if every == "week":
        return midnight - timedelta(days=midnight.weekday())
    return midnight.replace(day=1)


def period_end(every: str, now: datetime) -> datetime:
    """When the UTC calendar period (``day``, ``week`` from Monday, ``month``) holding
    ``now`` ends."""
    utc = now.astimezone(UTC)
    midnight = utc.replace(hour=0, minute=0, second=0, microsecond=0)
    if every == "day":
        return midnight + timedelta(days=1)
    if every == "week":
        return midnight + timedelta(days=7 - midnight.weekday())
    first = midnight.replace(day=1)
    return (first + timedelta(days=32)).replace(day=1)


def budget_usage(
    desired: DesiredState, held: Iterable[Held], now: datetime
) -> dict[str, dict[str, float]]:
    """Each budgeted team's counted hours per instance type in its current period."""
    teams = {team.name: team.budget for team in desired.teams if team.budget is not None}
    shares = {share.address: share for share in desired.shares if share.team in teams}
    per_share: dict[tuple[str, str], list[Held]] = defaultdict(list)
    for item in held:
        if item.share in shares:
            per_share[(item.share, item.instance_type)].append(item)
    counted: dict[str, dict[str, float]] = {name: {} for name in teams}
    for (address, instance_type), items in per_share.items():
        share = shares[address]
        budget = teams[share.team]  # type: ignore[index]
        if budget is None or instance_type not in budget.instance_hours:
            continue
        since = period_start(budget.every, now)
        hours = (
            _used(items, since, now)
            if budget.counts == "used"
            else _borrowed(share, instance_type, items, since, now)
        )
        team = counted[share.team]  # type: ignore[index]
        team[instance_type] = team.get(instance_type, 0.0) + hours
    return counted


def _clip(item: Held, since: datetime, now: datetime) -> tuple[datetime, datetime] | None:
    start, end = max(item.start, since), min(item.end or now, now)
    return (start, end) if end > start else None


def _used(items: list[Held], since: datetime, now: datetime) -> float:
    seconds = 0.0
    for item in items:
        span = _clip(item, since, now)
        if span is not None:
            seconds += item.count * (span[1] - span[0]).total_seconds()
    return seconds / 3600


def _borrowed(
    share: ShareSpec, instance_type: str, items: list[Held], since: datetime, now: datetime
) -> float:
    """∫max(0, U - L): U steps at each start and end, L at each window boundary."""
    steps: dict[datetime, int] = defaultdict(int)
    for item in items:
        span = _clip(item, since, now)
        if span is not None:
            steps[span[0]] += item.count
            steps[span[1]] -= item.count
    for instant in boundaries(share.schedule, since, now):
        steps.setdefault(instant, 0)
    steps.setdefault(since, 0)
    seconds = 0.0
    in_use = 0
    instants = sorted(steps)
    for here, following in zip(instants, [*instants[1:], now], strict=True):
        in_use += steps[here]
        own = apply_window(share, window_in_force(share, here)).capacity.get(instance_type, 0)
        seconds += max(0, in_use - own) * (following - here).total_seconds()
    return seconds / 3600


def over_budget_ratio(
    desired: DesiredState, usage: Mapping[str, Mapping[str, float]]
) -> dict[tuple[str, str], float]:
    """Used / budget per (team, instance type) for every budgeted type (metrics, status)."""
    ratios = {}
    for team in desired.teams:
        if team.budget is None:
            continue
        for instance_type, limit in team.budget.instance_hours.items():
            used = usage.get(team.name, {}).get(instance_type, 0.0)
            ratios[(team.name, instance_type)] = used / limit if limit else 0.0
    return ratios
