"""Apply's preconditions: every refusal before the first write, in one place (apply decides
nothing new: it executes the plan and refuses a stale one).

``check_preconditions`` runs under the apply lock, against live state read under it, after
the plan has been computed (or a saved one verified by ``quotactl.core.plan.verify``): the
account and region, ownership by **live** tags, a saved plan's staleness, the delete guard
and the disruption guard (``quotactl.core.plan.disruption``, judged on the jobs live now). A new
guard is one more call in ``check_preconditions`` (and, if it needs an option, one more field
of ``Guards``). Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.plan import disruption
from quotactl.core.plan.fingerprint import fingerprint
from quotactl.core.plan.model import Action
from quotactl.core.resources.attributes import attributes
from quotactl.core.resources.desired import GOVERNOR_TAGS, STACK_TAG
from quotactl.core.resources.observed import Ref
from quotactl.core.words import count_of
from quotactl.errors import (
    AccountMismatchError,
    DeleteNotAllowedError,
    NotOwnedError,
    StalePlanError,
)

if TYPE_CHECKING:
    from datetime import datetime

    from quotactl.core.backend import StateReader
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.observed import ObservedState
    from quotactl.core.rules import Rule


@dataclass(frozen=True)
class Identity:
    """The account and region calls go to (STS on AWS; the emulator's own on local)."""

    account_id: str
    region: str


@dataclass(frozen=True)
class Guards:
    """What this apply was allowed to do, and where it runs."""

    identity: Identity
    allow_delete: bool = False
    allow_disruption: bool = False
    max_disruption: int | None = None
    """Allow a plan that disrupts at most this many active jobs (``--max-disruption N``)."""
    rules: tuple[Rule, ...] | None = None
    """The rules to judge the plan by; None: those a saved plan recorded (none for a config)."""
    overrides: tuple[str, ...] = ()
    """Soft rules accepted by name (``--override NAME``); a saved plan's are not reused."""
    now: datetime | None = None
    """The instant this apply runs at (a saved plan's policies must still be in force)."""


def read_live(plan: Plan, reader: StateReader) -> ObservedState:
    """Live state in the plan's reach: the stack's resources and those its scope names."""
    queues = [Ref.parse(a).name for a in plan.scope if a.startswith("queue.")]
    return reader.observe(plan.stack, queues).without_tags(GOVERNOR_TAGS)


def check_preconditions(
    plan: Plan, live: ObservedState, guards: Guards, reader: StateReader, *, saved: bool
) -> None:
    """Refuse, with nothing changed, a plan that apply must not run.

    ``live`` was read under the lock; ``reader`` serves a guard that needs more (the jobs
    live now); ``saved`` says the plan came from a file (it must not be stale)."""
    check_identity(plan, guards.identity)
    check_owned(plan, live)
    if saved:
        check_fresh(plan, live)
        check_policies(plan, guards.now)
    check_deletes(plan, guards)
    disruption.guard(plan, reader, allow=guards.allow_disruption, max_jobs=guards.max_disruption)


def check_identity(plan: Plan, identity: Identity) -> None:
    """The plan was computed against this account and region (``account-mismatch``)."""
    if plan.account_id != identity.account_id or plan.region != identity.region:
        raise AccountMismatchError(
            f"the plan was made for account {plan.account_id} in {plan.region}, but these "
            f"credentials and settings reach account {identity.account_id} in "
            f"{identity.region}: nothing was changed",
            hint="switch profile (--profile / AWS_PROFILE) or --region, or make a new plan here",
        )


def check_expected_account(expected: str | None, identity: Identity) -> None:
    """``platform.account_id``, when set, names the account the calls reach."""
    if expected is not None and expected != identity.account_id:
        raise AccountMismatchError(
            f"these credentials are for account {identity.account_id}, "
            f"but platform.account_id is {expected}: nothing was changed",
            hint="switch profile (--profile / AWS_PROFILE) or fix platform.account_id",
        )


def check_fresh(plan: Plan, live: ObservedState) -> None:
    """Live still matches the state the saved plan was computed from (``plan-stale``): the
    fingerprint, and each change's ``before`` (so that a fingerprint recomputed by whoever
    edited the file does not vouch for a ``before`` that live does not hold)."""
    present = live.present()
    differing = [
        c.address
        for c in plan.changes
        if c.before is not None
        and (current := present.get(c.before.address)) is not None
        and attributes(current.spec, policy_type=current.policy_type) != c.before_attributes
    ]
    if differing or fingerprint(live, plan.stack, plan.scope) != plan.fingerprint:
        raise StalePlanError(
            "the saved plan is stale: live resources changed after it was made; "
            "nothing was changed",
            hint="run `quotactl plan --out FILE` again and review the new plan",
        )


def check_policies(plan: Plan, now: datetime | None) -> None:
    """The schedule windows and budget states a saved plan recorded are still in force
    (``plan-stale``): not before the instant it was made for, not after their next change."""
    policies = plan.policies
    if policies is None or now is None or policies.holds_at(now):
        return
    made = policies.at.strftime("%Y-%m-%dT%H:%MZ")
    until = policies.until()
    if now < policies.at:
        why = f"it was made for the policies in force at {made}, which is still to come"
    else:
        ended = until.strftime("%Y-%m-%dT%H:%MZ") if until else "since"
        why = f"the policies in force when it was made ({made}) changed at {ended}"
    raise StalePlanError(
        f"the saved plan is stale: {why}; nothing was changed",
        hint="run `quotactl plan --out FILE` again and review the new plan",
    )


def check_owned(plan: Plan, live: ObservedState) -> None:
    """Every resource a change touches carries this stack's tag **now**, at that ARN."""
    present = live.present()
    refused: list[str] = []
    for change in plan.changes:
        if change.before is not None:
            current = present.get(change.before.address)
            if current is None:
                refused.append(f"{change.before.address} (not found live)")
            elif current.arn != change.arn:
                refused.append(f"{change.before.address} (live ARN is {current.arn})")
            elif current.stack != plan.stack:
                refused.append(f"{change.before.address} ({_owner(current.stack)})")
        if change.action is not Action.DELETE:
            current = present.get(change.address)
            if current is not None and current.stack != plan.stack and change.before is None:
                refused.append(f"{change.address} ({_owner(current.stack)})")
    if refused:
        raise NotOwnedError(
            f"the plan changes resources stack {plan.stack!r} does not own: "
            + ", ".join(refused)
            + "; nothing was changed",
            hint=f"quotactl changes only resources tagged {STACK_TAG}={plan.stack}; "
            "`quotactl import` adopts untagged ones",
        )


def _owner(stack: str | None) -> str:
    return f"owned by stack {stack!r}" if stack else f"no {STACK_TAG} tag"


def check_deletes(plan: Plan, guards: Guards) -> None:
    """Deletes and replaces need ``--allow-delete`` (``delete-not-allowed``)."""
    if plan.destructive and not guards.allow_delete:
        names = ", ".join(c.address for c in plan.destructive)
        raise DeleteNotAllowedError(
            f"the plan deletes or replaces {count_of(len(plan.destructive), 'resource')}"
            f" ({names}); nothing was changed",
            hint="review the plan (and its runtime impact), then re-run with --allow-delete",
        )
