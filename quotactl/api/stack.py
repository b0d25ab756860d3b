"""Stack use cases: ``plan``, ``apply``, saved plan files, and the stack lock.

Each takes typed values and returns typed results; the views (showing the plan, asking for
approval, progress) are callables the caller passes in, so nothing here prints.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from quotactl.core.files import check_readable, check_size, write_text
from quotactl.errors import FileIOError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.apply.flow import LockRequest
    from quotactl.core.apply.hooks import ApplyHooks, ApplyResult
    from quotactl.core.apply.lock import LockCleared, LockHolding, LockInfo
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule

PLAN_KEY = "QUOTACTL_PLAN_KEY"
"""The environment variable of the plan files' signing secret (HMAC-SHA256)."""


def plan(
    account: Account,
    desired: DesiredState,
    *,
    rules: Sequence[Rule] = (),
    overrides: Sequence[str] = (),
    at: datetime | str | None = None,
) -> Plan:
    """What apply would change in ``account`` to make it match ``desired`` (changes nothing);
    ``platform.account_id``, when set, must be the account reached. The plan carries the
    ``rules``' results (static ones on ``desired``, ``max_disruption`` on its impact), with the
    soft rules named in ``overrides`` accepted; an override that names no rule is refused.

    ``desired`` is taken as in force at ``at`` (an instant, or ISO 8601 text; default now):
    the schedule windows in force then override the shares' settings, and the plan records
    which windows and budgets are in force and when the next change is."""
    from dataclasses import replace

    from quotactl.api.policy_time import account_now
    from quotactl.core.govern import desired_at, governed, policy_state
    from quotactl.core.govern.changes import policy_changes
    from quotactl.core.plan.diff import plan_with_live
    from quotactl.core.plan.policy import judge
    from quotactl.core.rules import check_overrides

    check_overrides(overrides, rules)
    identity = account.reach(desired.account_id)
    now, usage = _in_time(account, desired, at)
    in_force = desired_at(desired, now, usage)
    made, observed = plan_with_live(in_force, account.backend, identity)
    the_plan = judge(made, in_force, rules, overrides)
    live = {address: r.spec.tags for address, r in observed.present().items()}
    changes = policy_changes(desired, live, now)
    if changes and not governed(desired) and at is None:  # the account's clock, as apply's
        now = account_now(account, [q.name for q in desired.queues])
    if governed(desired) or changes:
        state = replace(policy_state(desired, now, usage), changes=changes)
        the_plan = replace(the_plan, policies=state)
    return the_plan


def _in_time(
    account: Account, desired: DesiredState, at: datetime | str | None
) -> tuple[datetime, dict[str, dict[str, float]]]:
    """The instant a governed configuration is taken at (``at``, else the account's clock)
    and its budgets' usage then (from the account's jobs), so a plan or an apply never undoes
    a window or a budget in force; for any other configuration, ``at`` or now and no usage."""
    from quotactl.api.policy_time import account_now, account_usage
    from quotactl.core.govern import governed

    if not governed(desired):
        return instant(at), {}
    now = instant(at) if at is not None else account_now(account, [q.name for q in desired.queues])
    return now, account_usage(account, desired, now)


def instant(at: datetime | str | None) -> datetime:
    """``at`` as an aware UTC instant: ISO 8601 text is parsed (``usage-error`` when it is
    none), None is now."""
    from datetime import UTC, datetime

    from quotactl.core.govern import parse_instant
    from quotactl.errors import UsageError

    if at is None:
        return datetime.now(UTC)
    if isinstance(at, datetime):
        return at.astimezone(UTC)
    try:
        return parse_instant(at)
    except ValueError:
        raise UsageError(
            f"--at {at!r} is not an ISO 8601 time",
            hint="write a time such as 2026-12-12T10:00Z or 2026-12-12T11:00+01:00",
        ) from None


def read_plan(path: Path, key: str | None = None) -> Plan:
    """The saved plan at ``path``, verified (refused when edited, unsigned under ``key``,
    or written by another version)."""
    from quotactl.config.value_checks import VALUE_CHECKS
    from quotactl.core.plan.envelope import MAX_PLAN_BYTES
    from quotactl.core.plan.verify import load

    check_readable(path, "plan file", hint="save one with: quotactl plan --out FILE")
    check_size(path, MAX_PLAN_BYTES, "plan file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise FileIOError(f"cannot read plan file {path}: {exc.strerror or exc}") from exc
    return load(data, VALUE_CHECKS, key=key)


def save_plan(the_plan: Plan, path: Path, key: str | None = None) -> None:
    """Write the plan file; signed (HMAC-SHA256) with ``key`` when it is given."""
    from quotactl.core.plan.document import to_document
    from quotactl.core.plan.envelope import sign
    from quotactl.errors import PlanSignatureError

    document = to_document(the_plan)
    if key is not None:
        if not key:
            raise PlanSignatureError(
                "QUOTACTL_PLAN_KEY is set but empty: refusing to write an unsigned plan",
                hint="set it to the signing secret, or unset it to write unsigned plans",
            )
        document = sign(document, key)
    write_text(path, "plan file", json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def lock_request(
    account: Account,
    command: str,
    timeout: float = 0.0,
    on_warning: Callable[[str], None] | None = None,
) -> LockRequest:
    """The stack lock for a writing ``command``, held by this user, host and process;
    ``timeout`` is how long to wait for another holder (seconds)."""
    import getpass
    import os
    import socket

    from quotactl.core.apply.flow import LockRequest

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        user = "unknown"
    holder = f"{user}@{socket.gethostname()} pid {os.getpid()}"
    return LockRequest(account.lock_store(), holder, command, timeout, on_warning=on_warning)


def apply(
    account: Account,
    source: DesiredState | Plan,
    *,
    show: Callable[[Plan], None],
    approve: Callable[[Plan], None],
    hooks: ApplyHooks | None = None,
    dry_run: bool = False,
    allow_delete: bool = False,
    allow_disruption: bool = False,
    max_disruption: int | None = None,
    lock_timeout: float = 0.0,
    on_lock_warning: Callable[[str], None] | None = None,
    rules: Sequence[Rule] | None = None,
    overrides: Sequence[str] = (),
    log: Path | None = None,
) -> ApplyResult | None:
    """Make ``account`` match ``source`` (a configuration's desired state, or a verified
    saved plan), under the stack's lock. ``show`` sees the plan and ``approve`` raises to
    refuse it. Returns None when nothing was applied (an empty plan, or ``dry_run``).

    Every rule is judged again under the lock (``rule-failed`` refuses, nothing changed):
    ``rules``, or when None those a saved plan recorded; ``overrides`` accept soft rules by
    name (those a saved plan recorded are not reused: overriding is decided at apply).

    ``log``: a JSON Lines file that gains a record of each change made (``govern --log``'s
    format), stamped with the account's time once the apply is done."""
    from quotactl.api.policy_time import account_now
    from quotactl.core.apply.flow import run_apply
    from quotactl.core.apply.preconditions import Guards
    from quotactl.core.govern import desired_at
    from quotactl.core.plan.model import Plan
    from quotactl.core.rules import check_overrides

    if isinstance(source, Plan):
        queues = sorted({c.ref.queue or c.ref.name for c in source.changes if c.ref.queue})
        now = account_now(account, queues) if source.policies is not None else instant(None)
    else:  # the windows and budgets in force now: never undone
        now, usage = _in_time(account, source, None)
        source = desired_at(source, now, usage)
    expected = None if isinstance(source, Plan) else source.account_id
    judged_by = tuple(rules) if rules is not None else None
    recorded = source.rules.rules if isinstance(source, Plan) else ()
    check_overrides(overrides, judged_by if judged_by is not None else recorded)
    guards = Guards(
        account.reach(expected),
        allow_delete=allow_delete,
        allow_disruption=allow_disruption,
        max_disruption=max_disruption,
        rules=judged_by,
        overrides=tuple(overrides),
        now=now,
    )
    lock = (
        None
        if dry_run
        else lock_request(account, "apply", lock_timeout, on_warning=on_lock_warning)
    )
    if log is not None and not dry_run:
        from quotactl.api.log_file import check_appendable

        check_appendable(log, "apply log")  # before anything is changed
    shown: list[Plan] = []

    def seen(plan: Plan) -> None:
        shown.append(plan)
        show(plan)

    result = run_apply(
        source, account.backend, guards, lock=lock, show=seen, approve=approve, hooks=hooks
    )
    if log is not None and result is not None and shown:
        _log_changes(account, log, shown[-1], result)
    return result


def _log_changes(account: Account, log: Path, plan: Plan, result: ApplyResult) -> None:
    """``apply --log``: a record per change made, stamped with the account's time now."""
    from quotactl.api.log_file import append_log
    from quotactl.api.policy_time import account_now
    from quotactl.core.history.settings import applied_records

    queues = sorted(
        {c.ref.queue or c.ref.name for c in plan.changes if c.ref.kind.value in ("queue", "share")}
    )
    append_log(log, applied_records(plan, result, account_now(account, queues)), "apply log")


def lock_holder(account: Account, stack: str) -> LockInfo | None:
    """Who holds ``stack``'s lock, or None when it is free."""
    from quotactl.core.apply.lock import held_by

    return held_by(account.lock_store(), stack)


def force_unlock(account: Account, stack: str) -> None:
    """Remove ``stack``'s lock, whoever holds it (only for a holder that is gone)."""
    from quotactl.core.apply.lock import force_unlock as clear

    clear(account.lock_store(), stack)


def unlock(
    account: Account,
    desired: DesiredState,
    *,
    review: Callable[[LockHolding], None],
    clock: Callable[[], float],
) -> LockHolding | LockCleared:
    """``force-unlock``: in the account ``desired`` names, remove its stack's lock once
    ``review`` has seen who holds it (it raises to refuse); the holding when nobody does."""
    from quotactl.core.apply.lock import LockCleared, LockHolding

    account.reach(desired.account_id)
    holding = LockHolding(desired.stack, lock_holder(account, desired.stack), clock())
    if holding.holder is None:
        return holding
    review(holding)
    force_unlock(account, desired.stack)
    return LockCleared(desired.stack)
