"""The checked config -> ``DesiredState``: the AWS resources it declares, with their tags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.resources.desired import (
    STACK_TAG,
    TEAM_TAG,
    UNLIMITED,
    DesiredState,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    RunnableTimeout,
    ShareSpec,
    Strategy,
    policy_name_for,
)

if TYPE_CHECKING:
    from quotactl.config.schema import Config, Share

_STRATEGIES = {
    "reserve": Strategy.RESERVE,
    "lend": Strategy.LEND,
    "lend_and_borrow": Strategy.LEND_AND_BORROW,
}


def to_desired(config: Config) -> DesiredState:
    """One spec per resource; every tag map ends with ``quotactl:stack=<platform.name>``."""
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
        )
        for queue in config.queues
    )
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
        )
        for team in config.teams
        for share in team.shares
    )
    return DesiredState(
        stack=platform.name,
        region=platform.region,
        account_id=platform.account_id,
        environments=environments,
        policies=policies,
        queues=queues,
        shares=shares,
    )


def _borrow_limit(share: Share) -> int:
    """Percent, or -1 (unlimited, AWS's default); non-borrowing shares always carry -1."""
    limit = share.borrow_limit
    if share.sharing != "lend_and_borrow" or not isinstance(limit, int):
        return UNLIMITED
    return limit
