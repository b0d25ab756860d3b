"""A governor cycle's decision: one pure function of (configuration, time, live state, usage).

``decide`` is the one place that says what the policies require now; ``quotactl govern``
applies its actions to a live account (or the emulated one), ``simulate`` to its engine at the
governor's cadence, so a preview and the outcome it predicts take the same actions at the same
times.

Shares. For each share this stack owns, the policy-controlled fields (capacity, sharing,
borrow limit, in-share preemption, enabled) are compared with ``desired_at`` (the window in
force, then budget states). A field is changed when a policy in force sets it, or when the share
carries the governor's tag (a change of ours to restore or to move on); any other difference
from the configuration is drift, reported and left to ``apply``. A capacity lowering that would
disrupt running work (fewer instances than the share's jobs hold) goes only as far as the
instances in use unless ``allow_disruption``; the rest is ``blocked`` and finished as jobs end.

Jobs. On a queue with ``aging``, a RUNNABLE job's target priority is its base plus
``min(max, step * floor((waited - after) / every))``; in a share with in-share preemption it
never rises above the lowest priority running there unless ``aging.preempt``. Priorities only
rise; a budget never touches them.

Actions come in a fixed order: share updates by address, then priority updates by job
(creation time, then ID). Both sides apply them in that order, with a scheduling pass after
each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.state import (
    PolicyState,
    budgets_over,
    desired_at,
    policy_state,
)
from quotactl.core.govern.usage import period_end
from quotactl.core.govern.windows import next_change_of, window_in_force
from quotactl.core.resources.attributes import attributes
from quotactl.core.resources.desired import STACK_TAG
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from quotactl.core.resources.desired import Aging, DesiredState, ShareSpec

GOVERNED_TAG = "quotactl:governed"
"""On a share the governor changed: ``<policy> until=<ISO instant>`` (the policy that set it
and when its reason ends; past that instant the restore is overdue), or ``<policy>
restoring`` while a restore waits for running jobs to end."""
BUDGET_TAG = "quotactl:budget"
"""On each share of a budgeted team: the team's budget figures as the last cycle counted them,
``<over> resets=<ISO instant> <type>=<used>/<limit> ...`` (used in steps of 1 % of the limit,
so the tag changes at most a hundred times a period). ``status``, ``job why`` and ``metrics``
read budgets from it without the configuration."""
BASE_PRIORITY_TAG = "quotactl:base-priority"
"""On a job aging raised: its priority when the governor first saw it."""
GOVERNOR_TAG = "quotactl:governor"
"""On each job queue with ``aging``: ``last=<ISO instant, ms>``, the account's time of the last
cycle that raised every waiting job due then. A later cycle, ``--once`` in a fresh process
included, describes only the waiting jobs whose boost grew since that instant."""

POLICY_FIELDS = ("capacity", "sharing", "borrow_limit", "in_share_preemption", "enabled")
"""The share fields a policy controls (configuration names, as in ``attributes``)."""


class ActionKind:
    UPDATE_SHARE = "update-share"
    UPDATE_PRIORITY = "update-priority"


@dataclass(frozen=True)
class GovernedShare:
    """A live share as the governor sees it: its settings (tags included) and the instances
    its running jobs hold, per type."""

    spec: ShareSpec
    in_use: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class GovernedJob:
    """A live job as aging sees it. ``runnable_since``: when its current wait began (its
    creation, or the end of its last attempt); None when it is not waiting."""

    job_id: str
    queue: str
    share: str | None
    status: JobStatus
    priority: int
    created_at: datetime
    runnable_since: datetime | None = None
    base_priority: int | None = None
    """The ``quotactl:base-priority`` tag, if the governor set one."""


@dataclass(frozen=True)
class Action:
    """One change a cycle makes. ``after`` is what is applied now; ``target`` what the policy
    wants (they differ only when a disrupting lowering is held back: then ``blocked``)."""

    policy: str
    """``schedule:NAME``, ``budget`` or ``aging`` (a restore names the policy that ended)."""
    kind: str
    address: str
    """``share.QUEUE/NAME`` or ``job.JOB_ID``."""
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    target: Mapping[str, Any]
    reason: str
    until: datetime | None = None
    """When the reason ends (the window's end, the budget's reset); None for a restore."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags to set with the change; ``GOVERNED_TAG`` absent from them on a restore means it
    is removed."""
    untag: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        """Part of the change is held back (it would disrupt running work)."""
        return dict(self.after) != dict(self.target)

    @property
    def changes(self) -> bool:
        """Whether applying it changes anything now (a fully blocked action does not)."""
        return dict(self.after) != dict(self.before) or bool(self.tags) or bool(self.untag)

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "kind": self.kind,
            "address": self.address,
            "before": dict(self.before),
            "after": dict(self.after),
            "target": dict(self.target),
            "reason": self.reason,
            "until": _iso(self.until) if self.until else None,
            "blocked": self.blocked,
        }


@dataclass(frozen=True)
class Drift:
    """A difference from the configuration no policy explains: reported, left to apply."""

    address: str
    field: str
    live: Any
    configured: Any


@dataclass(frozen=True)
class Decision:
    """What a cycle at ``at`` does."""

    at: datetime
    actions: tuple[Action, ...]
    drift: tuple[Drift, ...]
    state: PolicyState
    budget_tags: Mapping[str, str] = field(default_factory=dict)
    """The ``quotactl:budget`` value each budgeted share should carry, where its tag differs
    (bookkeeping set with the cycle, not an action: it changes no setting)."""


def governed_tag(policy: str, until: datetime | None) -> str:
    """The ``quotactl:governed`` value: ``budget until=2027-01-01T00:00:00Z``."""
    return f"{policy} until={_iso(until)}" if until else policy


def governor_tag(at: datetime) -> str:
    """The ``quotactl:governor`` value: ``last=2030-01-05T00:00:00.004Z`` (milliseconds, as
    the job listing's times, rounded down: a job is never taken to have been seen later than
    it was)."""
    return "last=" + at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_governor_tag(value: str | None) -> datetime | None:
    """The instant of a ``quotactl:governor`` value (None when absent or unreadable)."""
    if not value or not value.startswith("last="):
        return None
    try:
        return datetime.fromisoformat(value[5:].replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def read_governed_tag(value: str) -> tuple[str, datetime | None]:
    """The policy and ``until`` of a ``quotactl:governed`` value (until None if unreadable,
    or for ``<policy> restoring``: a restore held back until running jobs end)."""
    policy, _, rest = value.partition(" ")
    if rest.startswith("until="):
        try:
            return policy, datetime.fromisoformat(rest[6:].replace("Z", "+00:00")).astimezone(UTC)
        except ValueError:
            return policy, None
    return policy, None


@dataclass(frozen=True)
class BudgetFigures:
    """A team's budget as a share's ``quotactl:budget`` tag tells it."""

    over: str
    resets: datetime | None
    used: Mapping[str, tuple[float, float]]
    """Per instance type: (hours counted, hours allowed)."""


def budget_tag(over: str, resets: datetime, used: Mapping[str, tuple[float, float]]) -> str:
    """The ``quotactl:budget`` value: ``soft resets=2027-01-01T00:00:00Z ml.p5.48xlarge=
    1520/2000`` (hours counted rounded down to 1 % of the limit)."""
    parts = [over, f"resets={_iso(resets)}"]
    for name in sorted(used):
        hours, limit = used[name]
        step = limit / 100 if limit > 0 else 1.0
        steps = int(hours / step + 1e-9)  # 1.0 h of 2 is 50 steps, not 49.99...
        parts.append(f"{name}={_number(steps * step)}/{_number(limit)}")
    return " ".join(parts)


def read_budget_tag(value: str) -> BudgetFigures | None:
    """The figures of a ``quotactl:budget`` value; None when it is not one."""
    words = value.split()
    if not words or words[0] not in ("soft", "hard"):
        return None
    resets: datetime | None = None
    used: dict[str, tuple[float, float]] = {}
    try:
        for word in words[1:]:
            key, _, rest = word.partition("=")
            if key == "resets":
                resets = datetime.fromisoformat(rest.replace("Z", "+00:00")).astimezone(UTC)
            else:
                hours, _, limit = rest.partition("/")
                used[key] = (float(hours), float(limit))
    except ValueError:
        return None
    return BudgetFigures(words[0], resets, used)


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _fields(spec: ShareSpec) -> dict[str, Any]:
    attrs = attributes(spec)
    return {name: attrs[name] for name in POLICY_FIELDS}


def decide(
    desired: DesiredState,
    now: datetime,
    shares: Iterable[GovernedShare],
    jobs: Iterable[GovernedJob] = (),
    usage: Mapping[str, Mapping[str, float]] | None = None,
    *,
    allow_disruption: bool = False,
) -> Decision:
    """The actions the policies require at ``now`` (aware), and the drift they leave alone."""
    usage = usage or {}
    target_state = desired_at(desired, now, usage)
    config = {share.address: share for share in desired.shares}
    targets = {share.address: share for share in target_state.shares}
    over = budgets_over(desired, now, usage)
    actions: list[Action] = []
    drift: list[Drift] = []
    live_shares = sorted(shares, key=lambda s: s.spec.address)
    for live in live_shares:
        address = live.spec.address
        base = config.get(address)
        if base is None or live.spec.tags.get(STACK_TAG) != desired.stack:
            continue
        action, left = _share_action(live, base, targets[address], now, over, allow_disruption)
        drift.extend(left)
        if action is not None:
            actions.append(action)
    actions.extend(_aging_actions(desired, now, live_shares, jobs))
    return Decision(
        at=now,
        actions=tuple(actions),
        drift=tuple(drift),
        state=policy_state(desired, now, usage),
        budget_tags=_budget_tags(desired, now, live_shares, usage),
    )


def _budget_tags(
    desired: DesiredState,
    now: datetime,
    shares: list[GovernedShare],
    usage: Mapping[str, Mapping[str, float]],
) -> dict[str, str]:
    budgets = {team.name: team.budget for team in desired.teams if team.budget is not None}
    config = {share.address: share for share in desired.shares}
    wanted = {}
    for live in shares:
        base = config.get(live.spec.address)
        if (
            base is None
            or base.team not in budgets
            or live.spec.tags.get(STACK_TAG) != desired.stack
        ):
            continue
        budget = budgets[base.team]
        counted = usage.get(base.team, {})
        value = budget_tag(
            budget.over,
            period_end(budget.every, now),
            {
                name: (counted.get(name, 0.0), limit)
                for name, limit in budget.instance_hours.items()
            },
        )
        if live.spec.tags.get(BUDGET_TAG) != value:
            wanted[base.address] = value
    return wanted


def _share_action(
    live: GovernedShare,
    base: ShareSpec,
    target: ShareSpec,
    now: datetime,
    over: Iterable[Any],
    allow_disruption: bool,
) -> tuple[Action | None, list[Drift]]:
    have, config, want = _fields(live.spec), _fields(base), _fields(target)
    tag = live.spec.tags.get(GOVERNED_TAG)
    policy_set = {name for name in POLICY_FIELDS if want[name] != config[name]}
    in_force = bool(policy_set)
    window = window_in_force(base, now)
    budget = [b for b in over if b.team == base.team and b.instance_type in base.capacity]
    # Without our tag, only the fields a policy sets are ours; with it, every policy field
    # may hold an earlier change of ours (a window that ended, a budget that reset).
    ours = set(POLICY_FIELDS) if tag is not None else policy_set
    drift = [
        Drift(base.address, name, have[name], config[name])
        for name in POLICY_FIELDS
        if name not in ours and have[name] != config[name]
    ]
    changed = {name for name in ours if have[name] != want[name]}
    if not changed and tag is None and not in_force:
        return None, drift
    after = dict(want)
    if not allow_disruption:
        after["capacity"] = _undisruptive(want["capacity"], have["capacity"], live.in_use)
    before = {name: have[name] for name in POLICY_FIELDS if name in changed}
    if in_force:
        policy = "budget" if budget else f"schedule:{window.name}" if window else "schedule"
        ends = [b.resets for b in budget]
        if window is not None and (following := next_change_of(base, now)) is not None:
            ends.append(following)
        until = min(ends) if ends else None
        reason = _reason_in_force(window.name if window else None, budget)
        tags = {GOVERNED_TAG: governed_tag(policy, until)}
        untag: tuple[str, ...] = ()
    else:
        policy = "budget" if budget else read_governed_tag(tag)[0] if tag else "schedule"
        until = None
        reason = (
            _reason_in_force(None, budget) + ": the configuration's own settings"
            if budget
            else f"{policy} no longer in force: back to the configuration"
        )
        held_back = any(after[name] != want[name] for name in changed)
        # a restore held back by running work is in progress, not overdue
        tags = {GOVERNED_TAG: f"{policy} restoring"} if held_back else {}
        untag = () if held_back else (GOVERNED_TAG,)
    if tags.get(GOVERNED_TAG) == tag:
        tags = {}
    action = Action(
        policy=policy,
        kind=ActionKind.UPDATE_SHARE,
        address=base.address,
        before=before,
        after={name: after[name] for name in POLICY_FIELDS if name in changed},
        target={name: want[name] for name in POLICY_FIELDS if name in changed},
        reason=reason,
        until=until,
        tags=tags,
        untag=untag,
    )
    return (action if action.changes or action.blocked else None), drift


def _undisruptive(
    capacity: Mapping[str, int], live: Mapping[str, int], in_use: Mapping[str, int]
) -> dict[str, int]:
    """Each type's target, a lowering held at the instances running jobs hold (max(target,
    in use), never above the live limit: a raise is never more than its target, and jobs
    borrowing beyond a share's limit do not lift it)."""
    return {
        name: max(count, min(live.get(name, count), in_use.get(name, 0)))
        for name, count in capacity.items()
    }


def _reason_in_force(window: str | None, budget: list[Any]) -> str:
    parts = []
    if window is not None:
        parts.append(f"window {window} in force")
    for b in budget:
        parts.append(
            f"{b.team} over its {b.over} budget on {b.instance_type} ({b.used:g} of {b.limit:g} h)"
        )
    return "; ".join(parts)


def boost(aging: Aging, waited: float) -> int:
    """Aging's boost after ``waited`` seconds RUNNABLE: 0 before ``after``, then ``step`` per
    ``every``, at most ``max``."""
    if waited < aging.after:
        return 0
    return min(aging.max, aging.step * int((waited - aging.after) // aging.every))


def _aging_actions(
    desired: DesiredState,
    now: datetime,
    shares: list[GovernedShare],
    jobs: Iterable[GovernedJob],
) -> list[Action]:
    aging = {queue.name: queue.aging for queue in desired.queues if queue.aging is not None}
    if not aging:
        return []
    preempting = {(s.spec.queue, s.spec.name) for s in shares if s.spec.in_share_preemption}
    waiting: list[GovernedJob] = []
    lowest_running: dict[tuple[str, str | None], int] = {}
    for job in jobs:
        if job.queue not in aging:
            continue
        if job.status is JobStatus.RUNNABLE and job.runnable_since is not None:
            waiting.append(job)
        elif job.status in (JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.RUNNING):
            key = (job.queue, job.share)
            lowest_running[key] = min(lowest_running.get(key, job.priority), job.priority)
    actions = []
    for job in sorted(waiting, key=lambda j: (j.created_at, j.job_id)):
        rule = aging[job.queue]
        base = job.priority if job.base_priority is None else job.base_priority
        want = base + boost(rule, (now - job.runnable_since).total_seconds())  # type: ignore[operator]
        key = (job.queue, job.share)
        if key in preempting and not rule.preempt and key in lowest_running:
            want = min(want, lowest_running[key])
        if want <= job.priority:
            continue
        tags = {} if job.base_priority is not None else {BASE_PRIORITY_TAG: str(base)}
        actions.append(
            Action(
                policy="aging",
                kind=ActionKind.UPDATE_PRIORITY,
                address=f"job.{job.job_id}",
                before={"priority": job.priority},
                after={"priority": want},
                target={"priority": want},
                reason=f"waiting since {_iso(job.runnable_since)}",  # type: ignore[arg-type]
                tags=tags,
            )
        )
    return actions
