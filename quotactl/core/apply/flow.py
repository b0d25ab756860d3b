"""``apply`` end to end: lock, read, plan (or take the verified saved plan), refuse, approve, run.

Everything between taking the stack's lock and releasing it happens here, in this order, so
that the staleness check, the preconditions and every write see one consistent account: a
second apply of the same stack waits for the lock instead of interleaving with this one.
The caller supplies the views (``show``, ``approve``, hooks); nothing here prints.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from quotactl.core.apply.executor import apply
from quotactl.core.apply.lock import acquire
from quotactl.core.apply.preconditions import check_preconditions, read_live
from quotactl.core.plan.diff import plan_with_live
from quotactl.core.plan.disruption import reassess
from quotactl.core.plan.model import Plan
from quotactl.core.plan.policy import after_state, judge
from quotactl.core.rules import DISRUPTION_CHECKS, refusal

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.apply.executor import ApplyOptions
    from quotactl.core.apply.hooks import ApplyHooks, ApplyResult
    from quotactl.core.apply.lock import LockStore
    from quotactl.core.apply.preconditions import Guards
    from quotactl.core.backend import Backend, StateReader
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import ObservedState


@dataclass(frozen=True)
class LockRequest:
    """Who is asking for the stack's lock, and how long they wait for it (seconds)."""

    store: LockStore
    holder: str
    command: str
    timeout: float = 0.0
    on_warning: Callable[[str], None] | None = None

    def hold(self, stack: str) -> AbstractContextManager[object]:
        return acquire(
            self.store,
            stack,
            holder=self.holder,
            command=self.command,
            timeout=self.timeout,
            on_warning=self.on_warning,
        )


def run_apply(
    source: DesiredState | Plan,
    backend: Backend,
    guards: Guards,
    *,
    lock: LockRequest | None,
    show: Callable[[Plan], None],
    approve: Callable[[Plan], None],
    hooks: ApplyHooks | None = None,
    options: ApplyOptions | None = None,
) -> ApplyResult | None:
    """Apply ``source`` (a config's desired state, or a verified saved plan).

    ``lock`` None is a dry run: nothing is locked and nothing is written. Returns None when
    nothing was applied (an empty plan, or a dry run).
    """
    stack = source.stack
    held: AbstractContextManager[object] = nullcontext() if lock is None else lock.hold(stack)
    with held:
        if isinstance(source, Plan):
            plan, live = source, read_live(source, backend)
        else:
            plan, live = plan_with_live(source, backend, guards.identity)
        plan = judge_rules(plan, source, live, backend, guards)
        show(plan)
        error = refusal(plan.rules.results)
        if error is not None:
            raise error
        if plan.empty or lock is None:
            return None
        check_preconditions(plan, live, guards, backend, saved=isinstance(source, Plan))
        approve(plan)
        return apply(plan, backend, hooks, options)


def judge_rules(
    plan: Plan,
    source: DesiredState | Plan,
    live: ObservedState,
    reader: StateReader,
    guards: Guards,
) -> Plan:
    """``plan`` judged again by the rules, never trusting a saved plan's results: the static
    rules on the state it leads to, ``max_disruption`` on the jobs live now."""
    saved = source if isinstance(source, Plan) else None
    rules = guards.rules if guards.rules is not None else saved.rules.rules if saved else ()
    overrides = guards.overrides  # never those a saved plan recorded: overriding is apply's call
    if not rules:
        return plan
    judged = plan
    queues = plan.queues_at_risk()
    if saved is not None and queues and any(r.check in DISRUPTION_CHECKS for r in rules):
        judged = reassess(plan, reader.live_jobs(sorted(queues)))
    desired = after_state(plan, live) if saved is not None else source
    assert not isinstance(desired, Plan)
    return replace(plan, rules=judge(judged, desired, rules, overrides).rules)
