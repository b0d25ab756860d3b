"""``apply`` end to end: lock, read, plan (or take the verified saved plan), refuse, approve, run.

Everything between taking the stack's lock and releasing it happens here, in this order, so
that the staleness check, the preconditions and every write see one consistent account: a
second apply of the same stack waits for the lock instead of interleaving with this one.
The caller supplies the views (``show``, ``approve``, hooks); nothing here prints.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.apply.executor import apply
from quotactl.core.apply.lock import acquire
from quotactl.core.apply.preconditions import check_preconditions, read_live
from quotactl.core.plan.diff import plan_with_live
from quotactl.core.plan.model import Plan

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.apply.executor import ApplyOptions
    from quotactl.core.apply.hooks import ApplyHooks, ApplyResult
    from quotactl.core.apply.lock import LockStore
    from quotactl.core.apply.preconditions import Guards
    from quotactl.core.backend import Backend
    from quotactl.core.resources.desired import DesiredState


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
        show(plan)
        if plan.empty or lock is None:
            return None
        check_preconditions(plan, live, guards, backend, saved=isinstance(source, Plan))
        approve(plan)
        return apply(plan, backend, hooks, options)
