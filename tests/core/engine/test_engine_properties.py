"""Properties of every scheduling pass, over random queues and random job streams (hypothesis).

After each pass of a live engine, recomputed from the jobs' statuses alone (not the engine's
own counters): the scheduling model's invariant (docs/scheduling.md) and the borrow caps
hold, RESERVE capacity is used by nobody else, LEND and RESERVE shares never borrow, every
submitted job is in exactly one place, and the pass is work-conserving: no share's head job
that could start is left waiting. And a fresh engine handed a snapshot of the same jobs finds
nothing to do, so the incremental pass (which revisits only shares whose state changed)
reaches the fixpoint a full pass would. The fixpoint is checked again with preemption windows
(victims that keep their instances for a while, and jobs that wait with capacity reserved).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings, strategies as st

from quotactl.core.engine import (
    INSTANT,
    Job,
    JobStatus,
    QueueEngine,
    QueueModel,
    ShareModel,
    Timing,
    schedule,
)
from quotactl.core.resources.desired import UNLIMITED, Strategy

TYPES = ("ml.g5.xlarge", "ml.p4d.24xlarge")
ACTIVE = {JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.RUNNING}


@st.composite
def queues(draw: st.DrawFn) -> QueueModel:
    types = TYPES[: draw(st.integers(1, 2))]
    shares = []
    for i in range(draw(st.integers(1, 5))):
        limits = {t: draw(st.integers(1, 4)) for t in types if draw(st.booleans()) or t == types[0]}
        strategy = draw(st.sampled_from([*Strategy, Strategy.LEND_AND_BORROW]))
        shares.append(
            ShareModel(
                name=f"s{i}",
                limits=limits,
                strategy=strategy,
                borrow_limit=draw(st.sampled_from([UNLIMITED, UNLIMITED, 0, 50, 100, 200])),
                in_share_preemption=draw(st.booleans()),
            )
        )
    capacity = {}
    for t in types:
        claimed = sum(s.limits.get(t, 0) for s in shares)
        # under-, exactly and over-provisioned environments (validate only warns about these)
        capacity[t] = max(1, round(claimed * draw(st.sampled_from([0.5, 1.0, 1.0, 1.5]))))
    return QueueModel("q", capacity, tuple(shares))


@dataclass(frozen=True)
class Op:
    kind: str  # submit | advance | priority
    share: int = 0
    type_index: int = 0  # 0-23: one of the share's own types; 24: any (maybe misconfigured)
    count: int = 1
    priority: int = 0
    seconds: float = 0.0
    target: int = 0
    offer: bool = False  # submit through offer() (the simulator's way), then schedule


submits = st.builds(
    Op,
    kind=st.just("submit"),
    share=st.integers(0, 4),
    type_index=st.integers(0, 24),
    count=st.sampled_from([1] * 6 + [2] * 3 + [3] * 2 + [6]),
    priority=st.integers(0, 3),
    seconds=st.sampled_from([10.0, 30.0, 60.0, 90.0]),
    offer=st.booleans(),
)
advances = st.builds(Op, kind=st.just("advance"), seconds=st.sampled_from([5.0, 20.0, 45.0]))
reprioritise = st.builds(
    Op, kind=st.just("priority"), target=st.integers(0, 60), priority=st.integers(0, 5)
)
ops = st.lists(
    st.one_of(submits, submits, submits, advances, reprioritise), min_size=15, max_size=80
)


class CheckedEngine(QueueEngine):
    """A live engine whose every pass is followed by the property checks."""

    def __init__(self, queue: QueueModel, jobs: dict[str, Job]) -> None:
        super().__init__(queue, timing=INSTANT)
        self.all_jobs = jobs
        self.passes = 0

    def schedule(self, now: float) -> None:
        super().schedule(now)
        self.passes += 1
        check_pass(self, now)


def usage(jobs: dict[str, Job]) -> Counter[tuple[str, str]]:
    held: Counter[tuple[str, str]] = Counter()
    for job in jobs.values():
        if job.status in ACTIVE:
            held[job.share, job.instance_type] += job.count
    return held


def borrow_cap(share: ShareModel, t: str) -> float:
    if share.strategy is not Strategy.LEND_AND_BORROW or t not in share.limits:
        return 0
    if share.borrow_limit == UNLIMITED:
        return float("inf")
    return share.limits[t] * share.borrow_limit // 100


def check_pass(engine: CheckedEngine, now: float) -> None:
    queue, jobs = engine.queue, engine.all_jobs
    held = usage(jobs)
    types = set(queue.capacity) | {j.instance_type for j in jobs.values()}
    for t in types:
        used = sum(held[s.name, t] for s in queue.shares)
        own = {s.name: min(held[s.name, t], s.limits.get(t, 0)) for s in queue.shares}
        borrowed = {s.name: held[s.name, t] - own[s.name] for s in queue.shares}
        idle = sum(s.limits.get(t, 0) - own[s.name] for s in queue.shares if s.strategy.lends)
        assert used <= queue.capacity.get(t, 0), f"environment capacity exceeded for {t}"
        assert sum(borrowed.values()) <= idle, f"borrowing beyond lendable idle capacity of {t}"
        for s in queue.shares:
            assert borrowed[s.name] <= borrow_cap(s, t), f"{s.name} over its borrow cap on {t}"
        # RESERVE capacity is used by nobody else: the non-RESERVE shares fit in their own limits.
        sharing = [s for s in queue.shares if s.strategy is not Strategy.RESERVE]
        assert sum(held[s.name, t] for s in sharing) <= sum(s.limits.get(t, 0) for s in sharing)
    # No job lost or duplicated: the engine holds exactly the unfinished ones, once each.
    live = engine.jobs()
    assert len({j.job_id for j in live}) == len(live)
    assert {j.job_id for j in live} == {j.job_id for j in jobs.values() if not j.status.is_final}
    for job in jobs.values():
        assert job.status in ACTIVE or job.status in {
            JobStatus.RUNNABLE,
            JobStatus.SUCCEEDED,
            JobStatus.FAILED,
        }
    # Work-conserving: every share's head job (recomputed) cannot start without preemption.
    for share in queue.shares:
        waiting = [
            j for j in jobs.values() if j.share == share.name and j.status is JobStatus.RUNNABLE
        ]
        if not waiting:
            continue
        head = min(waiting, key=lambda j: (-j.priority, int(j.job_id)))
        assert not could_start(queue, held, head), f"{head} could start but waits"
    # Fixpoint: a full pass from scratch over the same jobs decides nothing more.
    fresh = schedule(queue, jobs.values(), now, timing=INSTANT)
    decided = [tr for tr in fresh if tr.status is not JobStatus.RUNNABLE or tr.preempted_attempt]
    assert decided == [], f"a full pass would still do {decided}"


def could_start(queue: QueueModel, held: Counter[tuple[str, str]], job: Job) -> bool:
    share = queue.share(job.share)
    t, n = job.instance_type, job.count
    limit = share.limits.get(t, 0)
    if t not in share.limits:
        return False
    if held[share.name, t] + n > limit + borrow_cap(share, t):
        return False
    if sum(held[s.name, t] for s in queue.shares) + n > queue.capacity.get(t, 0):
        return False
    if not share.strategy.lends:
        return True
    own = {s.name: min(held[s.name, t], s.limits.get(t, 0)) for s in queue.shares}
    borrowed = sum(held[s.name, t] - own[s.name] for s in queue.shares)
    idle = sum(s.limits.get(t, 0) - own[s.name] for s in queue.shares if s.strategy.lends)
    return idle - borrowed >= n


G5, P4D = TYPES


def _submit(share: int, type_index: int, count: int, priority: int, seconds: float) -> Op:
    return Op("submit", share, type_index, count, priority, seconds)


# Found by hypothesis: after a borrowing start, the share's next head is of another instance
# type and fits its own limit; it must still be looked at in the same pass.
NEXT_HEAD_OTHER_TYPE = (
    QueueModel(
        "q",
        {G5: 2, P4D: 2},
        (
            ShareModel("s0", {G5: 1, P4D: 2}, Strategy.LEND_AND_BORROW),
            ShareModel("s1", {G5: 1, P4D: 1}, Strategy.RESERVE),
            ShareModel("s2", {G5: 1}, Strategy.LEND),
        ),
    ),
    [_submit(0, 0, 1, 0, 10)] * 6
    + [_submit(0, 1, 2, 1, 10), _submit(1, 0, 1, 0, 30), _submit(0, 0, 2, 1, 30)]
    + [_submit(1, 1, 1, 0, 30), Op("advance", seconds=5), Op("advance", seconds=5)]
    + [_submit(0, 0, 1, 0, 10), _submit(0, 0, 1, 0, 10), _submit(0, 1, 2, 1, 10)],
)
# Found by hypothesis: raising a running borrower's priority reorders the victims another
# share's blocked head would choose, and with them whether reclaiming is enough.
REPRIORITISED_VICTIM = (
    QueueModel(
        "q",
        {G5: 4},
        (
            ShareModel("s0", {G5: 4}, Strategy.RESERVE),
            ShareModel("s1", {G5: 2}, Strategy.LEND_AND_BORROW),
            ShareModel("s2", {G5: 1}, Strategy.LEND),
        ),
    ),
    [_submit(0, 0, 1, 0, 10)] * 5
    + [_submit(0, 0, 1, 0, 60), Op("advance", seconds=5), Op("advance", seconds=20)]
    + [_submit(0, 0, 1, 0, 10), _submit(0, 0, 1, 0, 30), _submit(1, 0, 1, 0, 60)]
    + [_submit(1, 0, 2, 1, 30), _submit(0, 0, 3, 0, 10), Op("advance", seconds=45)]
    + [Op("priority", target=19, priority=1)],
)

# Found by hypothesis: a head that fails to reclaim is parked only after the pass's borrowing
# phase; a borrower starting in between must still make it look again (new victims).
BORROWED_BEFORE_PARKING = (
    QueueModel(
        "q",
        {G5: 4},
        (
            ShareModel("s0", {G5: 4}, Strategy.LEND, in_share_preemption=True),
            ShareModel("s1", {G5: 3}, Strategy.LEND_AND_BORROW),
        ),
    ),
    [Op("advance", seconds=5.0)] * 9
    + [_submit(0, 0, 1, 0, 10), Op("advance", seconds=5.0), _submit(1, 0, 3, 0, 10)]
    + [_submit(0, 0, 2, 0, 10), _submit(1, 0, 1, 1, 10), _submit(0, 0, 1, 0, 10)],
)

# Found by hypothesis: in-share preemption frees capacity in the middle of a pass, after
# another share's head failed to start for lack of it but before that head was parked.
FREED_BEFORE_PARKING = (
    QueueModel(
        "q",
        {G5: 2, P4D: 3},
        (
            ShareModel("s0", {G5: 1, P4D: 3}, Strategy.RESERVE, in_share_preemption=True),
            ShareModel("s1", {G5: 1, P4D: 2}, Strategy.RESERVE, in_share_preemption=True),
            ShareModel("s2", {G5: 1, P4D: 1}, Strategy.RESERVE),
            ShareModel("s3", {G5: 1}, Strategy.RESERVE),
        ),
    ),
    [Op("advance", seconds=5.0), _submit(0, 0, 1, 0, 10), Op("advance", seconds=5.0)]
    + [Op("advance", seconds=5.0), _submit(0, 1, 3, 1, 10), Op("advance", seconds=5.0)]
    + [_submit(0, 1, 1, 0, 10), _submit(1, 1, 1, 0, 10), Op("priority", target=2, priority=1)]
    + [_submit(0, 0, 1, 0, 10)] * 4
    + [Op("priority", target=1, priority=0)],
)


def drive(engine: QueueEngine, jobs: dict[str, Job], stream: list[Op]) -> None:
    """Play ``stream`` on ``engine``: submissions (each followed by a pass), clock advances and
    priority changes; ``jobs`` receives every job submitted."""
    queue = engine.queue
    types = list(queue.capacity)
    for op in stream:
        if op.kind == "submit":
            share = queue.shares[op.share % len(queue.shares)]
            own_types = list(share.limits)
            pick = types[-1] if op.type_index == 24 else own_types[op.type_index % len(own_types)]
            job = Job(
                job_id=f"{len(jobs):06d}",  # sorts like submissions (the last tie-break)
                share=share.name,
                instance_type=pick,
                count=op.count,
                priority=op.priority,
                submitted_at=engine.now,
                run_seconds=op.seconds,
            )
            jobs[job.job_id] = job
            if op.offer:
                job.status = JobStatus.RUNNABLE
                engine.offer(job)
            else:
                engine.submit(job)
            engine.schedule(engine.now)
        elif op.kind == "advance":
            engine.advance_to(engine.now + op.seconds)
        elif jobs:
            target = jobs[f"{op.target % len(jobs):06d}"]
            if not target.status.is_final:
                engine.set_priority(target.job_id, op.priority)
                engine.schedule(engine.now)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queue=queues(), stream=ops)
@example(*NEXT_HEAD_OTHER_TYPE)
@example(*REPRIORITISED_VICTIM)
@example(*BORROWED_BEFORE_PARKING)
@example(*FREED_BEFORE_PARKING)
def test_every_pass_keeps_the_invariants_and_is_work_conserving(
    queue: QueueModel, stream: list[Op]
) -> None:
    jobs: dict[str, Job] = {}
    engine = CheckedEngine(queue, jobs)
    drive(engine, jobs, stream)
    engine.advance_to(engine.now + 10_000)
    # Once arrivals stop, every job finishes unless its share is blocked by a misconfigured job.
    for job in jobs.values():
        if job.status is JobStatus.SUCCEEDED:
            continue
        head = engine.head(job.share)
        assert head is not None, f"{job} neither finished nor queued"
        assert (head.status_reason or "").startswith("MISCONFIGURATION"), f"{job} never ran"


WINDOWS = Timing(0.0, 0.0, True, 20.0, 0.0)
"""Preemption windows of 20 s (victims keep their instances meanwhile, the job they make room
for waits with the capacity reserved) and no other delay."""


class WindowedEngine(QueueEngine):
    """A live engine with preemption windows whose every pass is followed by the fixpoint
    check: a fresh engine loaded with copies of the same jobs (windows included) decides
    nothing more, no start, preemption or new window."""

    def __init__(self, queue: QueueModel, jobs: dict[str, Job]) -> None:
        super().__init__(queue, timing=WINDOWS)
        self.all_jobs = jobs

    def schedule(self, now: float) -> None:
        super().schedule(now)
        copies = [j.copy() for j in self.all_jobs.values() if not j.status.is_final]
        before = [(j.job_id, j.status, j.window is not None, j.preemptions) for j in copies]
        fresh = QueueEngine(self.queue, timing=WINDOWS, record=False)
        fresh.now = now
        fresh.load(copies)
        fresh.schedule(now)
        after = [(j.job_id, j.status, j.window is not None, j.preemptions) for j in copies]
        assert after == before, f"at {now} a full pass would still do more"


# Found by hypothesis: a job whose preemption window made room for it starts at the window's
# end as an ordinary active job; a higher-priority job of its share that came during the
# window (and found nobody to preempt) must look again then.
HIGHER_DURING_A_WINDOW = (
    QueueModel(
        "q",
        {G5: 1, P4D: 1},
        (
            ShareModel("s0", {G5: 1}, Strategy.RESERVE),
            ShareModel("s1", {G5: 1}, Strategy.RESERVE, in_share_preemption=True),
        ),
    ),
    [Op("advance", seconds=5.0)] * 2
    + [_submit(1, 0, 1, 0, 10), _submit(0, 0, 1, 0, 10), _submit(1, 0, 1, 1, 10)]
    + [Op("advance", seconds=5.0), Op("priority", target=0, priority=0)]
    + [_submit(0, 0, 1, 0, 10)] * 3
    + [Op("priority", target=0, priority=0), _submit(1, 0, 1, 0, 10)]
    + [Op("priority", target=0, priority=0), Op("priority", target=6, priority=2)]
    + [_submit(0, 0, 1, 0, 10)],
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queue=queues(), stream=ops)
@example(*HIGHER_DURING_A_WINDOW)
def test_with_preemption_windows_every_pass_reaches_the_fixpoint(
    queue: QueueModel, stream: list[Op]
) -> None:
    jobs: dict[str, Job] = {}
    engine = WindowedEngine(queue, jobs)
    drive(engine, jobs, stream)
    engine.advance_to(engine.now + 10_000)
