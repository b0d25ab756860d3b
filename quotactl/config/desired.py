"""The checked config -> ``DesiredState``: the AWS resources it declares, with their tags."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

from quotactl.core.govern.record import queue_records, share_records
from quotactl.core.resources.desired import (
    DAYS,
    STACK_TAG,
    TEAM_TAG,
    UNLIMITED,
    Aging as AgingSpec,
    Budget as BudgetSpec,
    DesiredState,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    RunnableTimeout,
    ShareSpec,
    Strategy,
    TeamSpec,
    When,
    Window,
    policy_name_for,
)

if TYPE_CHECKING:
    from quotactl.config import policy_schema
    from quotactl.config.schema import Config, Queue, Share, Team

_STRATEGIES = {
    "reserve": Strategy.RESERVE,
    "lend": Strategy.LEND,
    "lend_and_borrow": Strategy.LEND_AND_BORROW,
}


def to_desired(config: Config) -> DesiredState:
    """One spec per resource; every tag map ends with ``quotactl:stack=<platform.name>``, then
    the policy records (``core.govern.record``) of shares and queues with policies."""
    platform = config.platform
    base_tags = {**platform.tags, STACK_TAG: platform.name}
    environments = tuple(
        EnvironmentSpec(env.name, dict(env.capacity), env.enabled, dict(base_tags))
        for env in config.environments
    )
    policies = tuple(
        PolicySpec(policy_name_for(queue.name), dict(base_tags)) for queue in config.queues
    )
    queues = tuple(
        QueueSpec(
            name=queue.name,
            environment=queue.environment,
            policy=policy_name_for(queue.name),
            priority=queue.priority,
            enabled=queue.enabled,
            runnable_timeout=(
                RunnableTimeout(
                    queue.runnable_timeout.seconds, tuple(queue.runnable_timeout.reasons)
                )
                if queue.runnable_timeout
                else None
            ),
            tags=dict(base_tags),
            aging=_aging(queue),
        )
        for queue in config.queues
    )
    queues = tuple(replace(q, tags={**q.tags, **queue_records(q)}) for q in queues)
    shares = tuple(
        ShareSpec(
            queue=share.queue,
            name=share.name or team.name,
            capacity=dict(share.capacity),
            strategy=_STRATEGIES[share.sharing],
            borrow_limit=_borrow_limit(share),
            in_share_preemption=share.in_share_preemption,
            enabled=share.enabled,
            team=team.name,
            tags={**platform.tags, **team.tags, STACK_TAG: platform.name, TEAM_TAG: team.name},
            schedule=tuple(window_of(window) for window in share.schedule),
        )
        for team in config.teams
        for share in team.shares
    )
    teams = tuple(_team(team) for team in config.teams if team.budget or _has_ceiling(team))
    budgets = {team.name: team.budget for team in teams}
    shares = tuple(
        replace(s, tags={**s.tags, **share_records(s, budgets.get(s.team or ""))}) for s in shares
    )
    return DesiredState(
        stack=platform.name,
        region=platform.region,
        account_id=platform.account_id,
        environments=environments,
        policies=policies,
        queues=queues,
        shares=shares,
        teams=teams,
    )


def _has_ceiling(team: Team) -> bool:
    return team.max_priority is not None


def _team(team: Team) -> TeamSpec:
    budget = team.budget
    return TeamSpec(
        name=team.name,
        budget=(
            BudgetSpec(budget.every, dict(budget.instance_hours), budget.counts, budget.over)
            if budget
            else None
        ),
        max_priority=team.max_priority,
    )


def _aging(queue: Queue) -> AgingSpec | None:
    aging = queue.aging
    if aging is None:
        return None
    return AgingSpec(aging.after, aging.every, aging.step, aging.max, aging.preempt)


def window_of(window: policy_schema.Window) -> Window:
    """A window as plain data: days as numbers (ranges expanded), hours as minutes."""
    when = window.when
    strategy = _STRATEGIES[window.sharing] if window.sharing else None
    limit = window.borrow_limit
    return Window(
        name=window.name,
        when=When(
            days=_days(when.days or []),
            hours=_hours(when.hours) if when.hours else None,
            dates=tuple(_dates(text) for text in when.dates or []),
            timezone=when.timezone,
        ),
        capacity=dict(window.capacity) if window.capacity else None,
        strategy=strategy,
        borrow_limit=UNLIMITED if limit == "unlimited" else limit,
        in_share_preemption=window.in_share_preemption,
        enabled=window.enabled,
    )


def _days(names: list[str]) -> tuple[int, ...]:
    days: list[int] = []
    for name in names:
        first, _, last = name.partition("-")
        start, end = DAYS.index(first), DAYS.index(last or first)
        span = (end - start) % 7
        days += [(start + k) % 7 for k in range(span + 1)]
    return tuple(sorted(set(days)))


def _hours(text: str) -> tuple[int, int]:
    start, end = text.split("-")
    return _minutes(start), _minutes(end)


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _dates(text: str) -> tuple[date, date]:
    first, _, last = text.partition("/")
    return date.fromisoformat(first), date.fromisoformat(last or first)


def _borrow_limit(share: Share) -> int:
    """Percent, or -1 (unlimited, AWS's default); non-borrowing shares always carry -1."""
    limit = share.borrow_limit
    if share.sharing != "lend_and_borrow" or not isinstance(limit, int):
        return UNLIMITED
    return limit
