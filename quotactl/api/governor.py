"""``govern``: one governor cycle against an account (the emulator or AWS), through boto3.

A cycle takes the stack lock (skipping the cycle, never queueing behind an apply, unless a
lock timeout is given), reads the account (the stack's shares with their tags and the
instances their running jobs hold; on queues with aging the waiting jobs; for budgets the
jobs of the period and any history ledgers), asks ``core.govern.decide`` what the policies
require now, applies each action in order, keeps the ``quotactl:budget`` tags current, and
appends one JSON Lines record per action to the log. ``--dry-run`` takes no lock and changes
nothing.

"Now" is the account's time (the emulator's clock, AWS's ``Date`` header) clamped to at
least the newest timestamp read, unless the caller gives one (``local advance --govern``
runs a cycle at each emulated tick in process).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.errors import QuotactlError, StateLockedError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.apply.flow import LockRequest
    from quotactl.core.govern.cycle import Action, GovernedJob, GovernedShare
    from quotactl.core.govern.run import GovernCycle, GovernRun, Outcome
    from quotactl.core.resources.desired import Aging, DesiredState
    from quotactl.core.resources.observed import LiveJob, ObservedResource


def govern_cycle(
    target: Account,
    paths: DesiredState | Sequence[Path | str] | None,
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    allow_disruption: bool = False,
    log: Path | None = None,
    history: Sequence[Path] = (),
    lock_timeout: float | None = None,
    since: datetime | None = None,
    on_lock_warning: Callable[[str], None] | None = None,
) -> GovernCycle:
    """One governor cycle of the configuration at ``paths`` (or a loaded desired state) on
    ``target``. ``lock_timeout`` None skips the cycle when another holds the stack lock;
    seconds wait that long first (then skip). ``since``: when the previous cycle ran (only
    waiting jobs that crossed an aging step boundary since then are described)."""
    from quotactl.api.config import load
    from quotactl.api.stack import lock_request
    from quotactl.core.govern.run import GovernCycle
    from quotactl.core.resources.desired import DesiredState

    desired = paths if isinstance(paths, DesiredState) else load(paths).desired
    target.reach(desired.account_id)
    if dry_run:
        return _cycle(target, desired, now, True, allow_disruption, history, since)
    request = lock_request(target, "govern", lock_timeout or 0.0, on_warning=on_lock_warning)
    try:
        held = _hold(target, request, desired.stack)
    except StateLockedError as exc:
        at = now or _account_now(target, desired, ())
        note = exc.message.removesuffix("; nothing was changed")
        return GovernCycle(at=at, stack=desired.stack, skipped=note)
    with held:
        from quotactl.api.log_file import append_log

        written = None if log is None else lambda record: append_log(log, [record], "governor log")
        return _cycle(target, desired, now, False, allow_disruption, history, since, written)


def _hold(account: Account, request: LockRequest, stack: str) -> AbstractContextManager[object]:
    """The stack lock; a lock a governor left behind when it died (expired: nobody renews it)
    is taken over, since a cycle only ever redoes what it finds undone. Any other holder's
    lock, expired or not, is theirs (``force-unlock`` clears a dead apply's)."""
    import time

    from quotactl.core.apply.lock import force_unlock, held_by

    try:
        return request.hold(stack)
    except StateLockedError:
        holder = held_by(request.store, stack)
        if holder is None or holder.command != "govern" or time.time() <= holder.expires:
            raise
        force_unlock(request.store, stack)
        return request.hold(stack)


def _cycle(
    account: Account,
    desired: DesiredState,
    now: datetime | None,
    dry_run: bool,
    allow_disruption: bool,
    history: Sequence[Path],
    since: datetime | None,
    written: Callable[[Mapping[str, Any]], None] | None = None,
) -> GovernCycle:
    from quotactl.api.policy_time import account_usage
    from quotactl.core.govern import decide
    from quotactl.core.govern.run import GovernCycle

    found, shares, live_jobs = read_shares(account, desired)
    at = now or _account_now(account, desired, live_jobs)
    last = _last_cycles(desired, found, since)
    jobs = read_waiting(account, desired, live_jobs, at, last)
    usage = account_usage(account, desired, at, history)
    decision = decide(desired, at, shares.values(), jobs, usage, allow_disruption=allow_disruption)
    arns = {address: resource.arn for address, resource in found.items()}
    if dry_run:
        from quotactl.core.govern.run import Outcome

        outcomes = tuple(Outcome(action, None) for action in decision.actions)
        errors: tuple[str, ...] = ()
    else:
        job_arns = {j.job_id: j.job_arn for j in live_jobs}
        done = []
        for action in decision.actions:
            done.append(_apply(account, action, found, job_arns))
            if written is not None:
                written(done[-1].record(at))
        outcomes = tuple(done)
        errors = _budget_tags(account, decision.budget_tags, arns)
        errors += _record_cycle(account, desired, found, at, outcomes)
    return GovernCycle(
        at=at,
        stack=desired.stack,
        outcomes=outcomes,
        drift=decision.drift,
        state=decision.state,
        budget_tags=decision.budget_tags,
        dry_run=dry_run,
        errors=errors,
    )


def read_shares(
    account: Account, desired: DesiredState
) -> tuple[dict[str, ObservedResource], dict[str, GovernedShare], tuple[LiveJob, ...]]:
    """The stack's live shares and job queues as read (by address), the shares with the
    instances their running jobs hold, and the unfinished jobs of their queues."""
    from quotactl.core.govern import GovernedShare
    from quotactl.core.resources.desired import QueueSpec, ShareSpec
    from quotactl.core.states import GOING

    queues = [q.name for q in desired.queues]
    observed = account.backend.observe(desired.stack, queues)
    found = {
        r.address: r
        for r in observed.resources
        if isinstance(r.spec, ShareSpec | QueueSpec) and r.status not in GOING
    }
    queue_found = {a: r for a, r in found.items() if isinstance(r.spec, QueueSpec)}
    found = {a: r for a, r in found.items() if isinstance(r.spec, ShareSpec)}
    live_jobs = account.backend.live_jobs(sorted({r.spec.queue for r in found.values()}))  # type: ignore[union-attr]
    in_use: dict[str, dict[str, int]] = {}
    for job in live_jobs:
        if job.holds_instances and job.share:
            held = in_use.setdefault(f"share.{job.queue}/{job.share}", {})
            for name, count in job.instances.items():
                held[name] = held.get(name, 0) + count
    shares = {
        address: GovernedShare(spec=r.spec, in_use=in_use.get(address, {}))  # type: ignore[arg-type]
        for address, r in found.items()
    }
    return {**found, **queue_found}, shares, live_jobs


def _last_cycles(
    desired: DesiredState, found: Mapping[str, ObservedResource], since: datetime | None
) -> dict[str, datetime | None]:
    """Per queue with aging, when the last cycle that raised every job due ran: the later of
    ``since`` (this process's previous cycle) and the queue's ``quotactl:governor`` tag
    (any earlier run's); None when neither is known (every job waiting past ``after`` is
    described)."""
    from quotactl.core.govern import GOVERNOR_TAG, read_governor_tag

    last: dict[str, datetime | None] = {}
    for queue in desired.queues:
        if queue.aging is None:
            continue
        resource = found.get(f"queue.{queue.name}")
        tagged = read_governor_tag(resource.spec.tags.get(GOVERNOR_TAG)) if resource else None
        known = [t for t in (since, tagged) if t is not None]
        last[queue.name] = max(known) if known else None
    return last


def _record_cycle(
    account: Account,
    desired: DesiredState,
    found: Mapping[str, ObservedResource],
    at: datetime,
    outcomes: Sequence[Outcome],
) -> tuple[str, ...]:
    """Tag each queue with aging with this cycle's time (``quotactl:governor``), unless a
    raise on it failed: then the next cycle describes again every job due since the last
    time recorded, the failed one included."""
    from quotactl.core.govern import GOVERNOR_TAG, governor_tag
    from quotactl.core.govern.run import Result

    if any(o.result == Result.FAILED and o.action.policy == "aging" for o in outcomes):
        return ()
    errors = []
    for queue in desired.queues:
        resource = found.get(f"queue.{queue.name}")
        if queue.aging is None or resource is None:
            continue
        try:
            account.batch.call(
                "TagResource", resourceArn=resource.arn, tags={GOVERNOR_TAG: governor_tag(at)}
            )
        except QuotactlError as exc:
            errors.append(f"queue.{queue.name}: cycle time not recorded: {exc.message}")
    return tuple(errors)


def read_waiting(
    account: Account,
    desired: DesiredState,
    live_jobs: Iterable[LiveJob],
    now: datetime,
    since: Mapping[str, datetime | None],
) -> list[GovernedJob]:
    """The jobs aging looks at, on queues with ``aging``: the running ones (their priority
    bounds a raise in a preempting share) and the waiting ones whose boost grew since the
    last cycle (``since``, per queue; all that waited past ``after`` when it is None),
    described for their priority and ``quotactl:base-priority`` tag."""
    from quotactl.aws import responses
    from quotactl.core.govern import BASE_PRIORITY_TAG, GovernedJob
    from quotactl.core.states import JobStatus

    aging = {q.name: q.aging for q in desired.queues if q.aging is not None}
    if not aging:
        return []
    chosen: list[LiveJob] = []
    jobs: list[GovernedJob] = []
    for job in live_jobs:
        rule = aging.get(job.queue)
        if rule is None or job.created_at is None:
            continue
        if job.status is JobStatus.RUNNABLE:
            # the listing bounds the wait from above (its creation, or its last stop where
            # listed): a job that ran before (preempted, retried) is described whatever its
            # bound says, since its wait began at its last attempt's end
            waited = now.timestamp() - _runnable_since(job)
            last = since.get(job.queue)
            if waited >= rule.after and (
                job.ever_started or _crossed(rule, _runnable_since(job), now, last)
            ):
                chosen.append(job)
        elif job.holds_instances and job.priority is not None:
            jobs.append(_governed(job, None, None))
    details = account.batch.map(
        lambda j: account.batch.call("DescribeServiceJob", jobId=j.job_id), chosen
    )
    for job, detail in zip(chosen, details, strict=True):
        described = responses.live_job(detail, job.queue, detail)
        if described.status is not JobStatus.RUNNABLE:
            continue
        tag = (detail.get("tags") or {}).get(BASE_PRIORITY_TAG)
        base = int(tag) if tag is not None and tag.lstrip("-").isdigit() else None
        began = _runnable_since(job, detail)
        jobs.append(_governed(described, datetime.fromtimestamp(began, UTC), base))
    return [j for j in jobs if isinstance(j, GovernedJob)]


def _governed(job: LiveJob, runnable_since: datetime | None, base: int | None) -> GovernedJob:
    from quotactl.core.govern import GovernedJob

    return GovernedJob(
        job_id=job.job_id,
        queue=job.queue,
        share=job.share,
        status=job.status,
        priority=job.priority or 0,
        created_at=datetime.fromtimestamp(job.created_at or 0.0, UTC),
        runnable_since=runnable_since,
        base_priority=base,
    )


def _runnable_since(job: LiveJob, detail: Mapping[str, Any] | None = None) -> float:
    """When the job's current wait began: its creation, or the end of its last attempt (from
    the listing's ``stoppedAt`` where it gives one; a listed RUNNABLE job that was preempted
    may show none, its DescribeServiceJob ``detail`` has every attempt's)."""
    from quotactl.aws.ledger import tried

    stops = [job.created_at or 0.0, job.stopped_at or 0.0]
    if detail is not None:
        stops += [a.stopped_at for a in tried(detail) if a.stopped_at is not None]
    return max(stops)


def _crossed(rule: Aging, start: float, now: datetime, since: datetime | None) -> bool:
    """Whether the boost of a job waiting from ``start`` grew after ``since`` (it crossed a
    step boundary below ``max``); always when its wait began after ``since``. A job that
    crossed several is raised to its current target in one update."""
    from quotactl.core.govern import boost

    if since is None or since.timestamp() <= start:
        return True
    return boost(rule, now.timestamp() - start) > boost(rule, since.timestamp() - start)


def _account_now(account: Account, desired: DesiredState, jobs: Iterable[LiveJob]) -> datetime:
    """The account's clock, clamped to at least the newest timestamp read."""
    from quotactl.api.policy_time import account_now

    clock = account_now(account, [q.name for q in desired.queues])
    newest = max(
        (t for j in jobs for t in (j.created_at, j.started_at, j.stopped_at) if t is not None),
        default=0.0,
    )
    return max(clock, datetime.fromtimestamp(newest, UTC))


def _apply(
    account: Account,
    action: Action,
    found: Mapping[str, ObservedResource],
    job_arns: Mapping[str, str],
) -> Outcome:
    from quotactl.core.govern import ActionKind
    from quotactl.core.govern.run import Outcome, Result

    try:
        if action.kind == ActionKind.UPDATE_SHARE:
            _update_share(account, action, found[action.address])
        else:
            job_id = action.address.removeprefix("job.")
            account.batch.call(
                "UpdateServiceJob", jobId=job_id, schedulingPriority=action.after["priority"]
            )
            if action.tags and job_arns.get(job_id):
                account.batch.call(
                    "TagResource", resourceArn=job_arns[job_id], tags=dict(action.tags)
                )
    except QuotactlError as exc:
        return Outcome(action, Result.FAILED, exc.message)
    return Outcome(action, Result.BLOCKED if action.blocked else Result.APPLIED)


def _update_share(account: Account, action: Action, resource: ObservedResource) -> None:
    from quotactl.aws import convert
    from quotactl.core.resources.attributes import attributes, spec_from_attributes
    from quotactl.core.resources.desired import ShareSpec
    from quotactl.core.resources.observed import Kind

    arn, live = resource.arn, resource.spec
    assert isinstance(live, ShareSpec)
    attrs = {**attributes(live), **dict(action.after), "queue": live.queue}
    spec = spec_from_attributes(Kind.SHARE, live.name, attrs)
    assert isinstance(spec, ShareSpec)
    fields = frozenset(
        name for name in action.after if action.after[name] != action.before.get(name)
    )
    # The tag goes first and comes off last: a governor stopped in between leaves a share
    # its next cycle recognises (tagged and not yet changed, or restored and still tagged).
    if action.tags:
        account.batch.call("TagResource", resourceArn=arn, tags=dict(action.tags))
    if fields:
        account.batch.call("UpdateQuotaShare", **convert.update_share(spec, arn, fields))
    if action.untag:
        account.batch.call("UntagResource", resourceArn=arn, tagKeys=list(action.untag))


def _budget_tags(
    account: Account, tags: Mapping[str, str], arns: Mapping[str, str]
) -> tuple[str, ...]:
    from quotactl.core.govern.cycle import BUDGET_TAG

    errors = []
    for address, value in sorted(tags.items()):
        try:
            account.batch.call("TagResource", resourceArn=arns[address], tags={BUDGET_TAG: value})
        except QuotactlError as exc:
            errors.append(f"{address}: budget tag not written: {exc.message}")
    return tuple(errors)


def govern(
    account: Account,
    paths: DesiredState | Sequence[Path | str] | None,
    *,
    every: float | None = None,
    stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
    dry_run: bool = False,
    allow_disruption: bool = False,
    log: Path | None = None,
    history: Sequence[Path] = (),
    lock_timeout: float | None = None,
) -> GovernRun:
    """``govern``: one cycle, or with ``every`` (seconds) one cycle every ``every`` until
    ``stop()`` says so (checked between cycles, so the cycle in hand always finishes). The
    cycles run as the result is iterated."""
    import time

    from quotactl.api.config import load
    from quotactl.core.govern.run import GovernRun
    from quotactl.core.resources.desired import DesiredState

    desired = paths if isinstance(paths, DesiredState) else load(paths).desired
    wait = sleep or time.sleep
    now = clock or time.monotonic

    def cycles() -> Iterator[GovernCycle]:
        since: datetime | None = None
        while True:
            started = now()
            cycle = govern_cycle(
                account,
                desired,
                dry_run=dry_run,
                allow_disruption=allow_disruption,
                log=log,
                history=history,
                lock_timeout=lock_timeout,
                since=since,
            )
            # A cycle that applies records its time on the account (``quotactl:governor``),
            # where the next one reads it; a dry run records nothing, so remember it here.
            if dry_run and cycle.skipped is None:
                since = cycle.at
            yield cycle
            if every is None:
                return
            due = started + every
            while not stop() and (left := due - now()) > 0:
                wait(min(left, 1.0))
            if stop():
                return

    return GovernRun(cycles(), every)
