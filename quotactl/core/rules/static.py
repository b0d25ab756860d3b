"""The checks judged on a desired state alone: capacity, reserve fraction, borrow limits, tags.

Every check reads the declared shares (disabled ones too: a disabled share still holds its
limits) and names what fails, so a reviewer knows what to change:

- ``capacity_within_environment``: per environment and instance type, the limits of the
  shares on its queue add up to at most the environment's capacity;
- ``min_capacity`` / ``max_capacity``: a share's limit, or a team's limits summed over its
  shares on every queue, per instance type named;
- ``max_reserve_fraction``: per environment and instance type, the RESERVE shares' limits
  are at most ``value`` percent of the environment's capacity;
- ``max_borrow_limit``: every lend_and_borrow share borrows at most ``value`` percent
  (``unlimited`` only with ``allow_unlimited``);
- ``required_tags``: every share carries each key (its team's tags and the platform's).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from quotactl.core.resources.desired import TEAM_TAG, UNLIMITED, Strategy
from quotactl.core.rules.model import Check
from quotactl.core.rules.verdict import Finding

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.resources.desired import DesiredState, ShareSpec
    from quotactl.core.rules.model import Rule

MAX_NAMED = 5
"""How many failing places a message names before it counts the rest."""


def capacity_within_environment(rule: Rule, desired: DesiredState) -> Finding:
    promised = _per_environment(desired, lambda share: True)
    over = [
        f"{env} {t}: {n} promised, {capacity} available"
        for (env, t), (n, capacity) in promised.items()
        if n > capacity
    ]
    if over:
        return Finding(False, f"shares promise more than the environment has: {_list(over)}")
    return Finding(True, "every environment holds what its shares promise")


def min_capacity(rule: Rule, desired: DesiredState) -> Finding:
    return _bounded(rule, desired, lambda have, bound: have >= bound, "at least")


def max_capacity(rule: Rule, desired: DesiredState) -> Finding:
    return _bounded(rule, desired, lambda have, bound: have <= bound, "at most")


def max_reserve_fraction(rule: Rule, desired: DesiredState) -> Finding:
    limit = rule.value if rule.value is not None else 100
    reserved = _per_environment(desired, lambda share: share.strategy is Strategy.RESERVE)
    over = [
        f"{env} {t}: {n} of {capacity} ({_percent(n, capacity)})"
        for (env, t), (n, capacity) in reserved.items()
        if n * 100 > limit * capacity
    ]
    if over:
        return Finding(False, f"more than {limit}% held RESERVE: {_list(over)}")
    return Finding(True, f"at most {limit}% of each environment's capacity is held RESERVE")


def max_borrow_limit(rule: Rule, desired: DesiredState) -> Finding:
    limit = rule.value if rule.value is not None else 0
    over = []
    for share in desired.shares:
        if share.strategy is not Strategy.LEND_AND_BORROW:
            continue
        if share.borrow_limit == UNLIMITED and not rule.allow_unlimited:
            over.append(f"{_where(share)} unlimited")
        elif share.borrow_limit != UNLIMITED and share.borrow_limit > limit:
            over.append(f"{_where(share)} {share.borrow_limit}%")
    if over:
        allowed = "" if rule.allow_unlimited else ", unlimited not allowed"
        return Finding(False, f"borrow limits above {limit}%{allowed}: {_list(over)}")
    return Finding(True, f"every borrow limit is at most {limit}%")


def required_tags(rule: Rule, desired: DesiredState) -> Finding:
    lacking: dict[str, list[str]] = defaultdict(list)
    for share in desired.shares:
        missing = [key for key in rule.keys if key not in share.tags]
        if missing:
            team = team_of(share)
            owner = f"team {team}" if team else f"share {_where(share)}"
            lacking[owner] += [m for m in missing if m not in lacking[owner]]
    if lacking:
        shown = [f"{owner} lacks {', '.join(keys)}" for owner, keys in lacking.items()]
        return Finding(False, _list(shown))
    return Finding(True, f"every share has {', '.join(rule.keys)}")


STATIC: dict[Check, Callable[[Rule, DesiredState], Finding]] = {
    Check.CAPACITY_WITHIN_ENVIRONMENT: capacity_within_environment,
    Check.MIN_CAPACITY: min_capacity,
    Check.MAX_CAPACITY: max_capacity,
    Check.MAX_RESERVE_FRACTION: max_reserve_fraction,
    Check.MAX_BORROW_LIMIT: max_borrow_limit,
    Check.REQUIRED_TAGS: required_tags,
}


def shares_of(rule: Rule, shares: Sequence[ShareSpec]) -> list[ShareSpec]:
    """The shares a rule's ``team`` or ``share`` names (every share when it names neither)."""
    if rule.team is not None:
        return [s for s in shares if team_of(s) == rule.team]
    if rule.share is not None:
        return [s for s in shares if rule.share in (s.name, f"{s.queue}/{s.name}")]
    return list(shares)


def team_of(share: ShareSpec) -> str | None:
    """The share's team: as configured, or as its ``quotactl:team`` tag says (live shares)."""
    return share.team or share.tags.get(TEAM_TAG)


def _bounded(
    rule: Rule, desired: DesiredState, holds: Callable[[int, int], bool], words: str
) -> Finding:
    subject = rule.subject or "every share"
    shares = shares_of(rule, desired.shares)
    if not shares:
        return Finding(False, f"{subject} is not in the config")
    totals: dict[str, int] = defaultdict(int)
    for share in shares:
        for instance_type, n in share.capacity.items():
            totals[instance_type] += n
    wrong = [
        f"{t} {totals.get(t, 0)}"
        for t, bound in rule.capacity.items()
        if not holds(totals.get(t, 0), bound)
    ]
    wanted = ", ".join(f"{t} {n}" for t, n in rule.capacity.items())
    if wrong:
        return Finding(False, f"{subject} has {_list(wrong)}; it must have {words} {wanted}")
    return Finding(True, f"{subject} has {words} {wanted}")


def _per_environment(
    desired: DesiredState, counted: Callable[[ShareSpec], bool]
) -> dict[tuple[str, str], tuple[int, int]]:
    """``(environment, instance type) -> (sum of counted shares' limits, capacity)``."""
    environment_of = {queue.name: queue.environment for queue in desired.queues}
    capacity = {env.name: env.capacity for env in desired.environments}
    sums: dict[tuple[str, str], int] = defaultdict(int)
    for share in desired.shares:
        env = environment_of.get(share.queue)
        if env is None or env not in capacity or not counted(share):
            continue
        for instance_type, n in share.capacity.items():
            sums[env, instance_type] += n
    return {key: (n, capacity[key[0]].get(key[1], 0)) for key, n in sums.items()}


def _where(share: ShareSpec) -> str:
    return f"{share.queue}/{share.name}"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "no capacity"


def _list(items: Sequence[str]) -> str:
    shown = "; ".join(items[:MAX_NAMED])
    if len(items) > MAX_NAMED:
        shown += f"; and {len(items) - MAX_NAMED:,} more"
    return shown
