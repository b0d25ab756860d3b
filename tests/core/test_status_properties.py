"""Properties of ``status`` on random queues run by the scheduling engine (hypothesis).

A random queue takes a random stream of jobs through the engine; at the end, the jobs are
turned into the ``LiveQueue`` a read of the account would give, and ``status`` is computed:
- per instance type, the lent capacity adds up to exactly the borrowed capacity;
- each share's headroom is exact: a job of ``headroom`` instances, put at the front of the
  share, starts in the next pass without preempting anything, and one of ``headroom + 1``
  does not (it waits, or it starts only by preempting).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from quotactl.core.engine import (
    INSTANT,
    Job,
    JobStatus,
    QueueEngine,
    QueueModel,
    ShareModel,
    schedule,
)
from quotactl.core.jobs.live import LiveQueue
from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.resources.observed import LiveJob
from quotactl.core.status.compute import queue_status

TYPES = ("ml.g5.xlarge", "ml.p4d.24xlarge")
FRONT = 9_999  # a priority above every generated one: the probe job is the share's head


@st.composite
def queues(draw: st.DrawFn) -> QueueModel:
    types = TYPES[: draw(st.integers(1, 2))]
    shares = []
    for i in range(draw(st.integers(1, 5))):
        limits = {t: draw(st.integers(1, 5)) for t in types if t == types[0] or draw(st.booleans())}
        shares.append(
            ShareModel(
                name=f"s{i}",
                limits=limits,
                strategy=draw(st.sampled_from(list(Strategy))),
                borrow_limit=draw(st.sampled_from([UNLIMITED, 0, 50, 100, 200])),
                in_share_preemption=draw(st.booleans()),
            )
        )
    capacity = {
        t: max(
            1, round(sum(s.limits.get(t, 0) for s in shares) * draw(st.sampled_from([0.5, 1, 1.5])))
        )
        for t in types
    }
    return QueueModel("q", capacity, tuple(shares))


@st.composite
def runs(draw: st.DrawFn) -> tuple[QueueModel, list[Job], float]:
    """A queue and its jobs as they stand after a random stream went through the engine."""
    queue = draw(queues())
    engine = QueueEngine(queue, timing=INSTANT)
    now = 0.0
    for index in range(draw(st.integers(0, 25))):
        share = draw(st.sampled_from(queue.shares))
        engine.submit(
            Job(
                job_id=f"j{index:03d}",  # IDs sort like submissions, as AWS orders ties
                share=share.name,
                instance_type=draw(st.sampled_from(sorted(share.limits))),
                count=draw(st.integers(1, 6)),
                priority=draw(st.integers(0, 3)),
                submitted_at=now,
                run_seconds=draw(st.sampled_from([30.0, 60.0, 600.0, None])),
            )
        )
        engine.schedule(now)
        now += draw(st.sampled_from([0.0, 10.0, 45.0]))
        engine.advance_to(now)
    engine.schedule(now)
    return queue, engine.jobs(), now


def live(queue: QueueModel, jobs: list[Job], now: float) -> LiveQueue:
    """What reading the account would give: each job as ListServiceJobs and DescribeServiceJob
    report it."""
    return LiveQueue(
        name=queue.name,
        arn="arn:aws:batch:us-east-1:123456789012:job-queue/q",
        model=queue,
        jobs=tuple(
            LiveJob(
                job_id=j.job_id,
                name=j.job_id,
                queue=queue.name,
                share=j.share,
                status=j.status,
                instances={j.instance_type: j.count},
                started_at=j.started_at,
                created_at=j.submitted_at,
                scheduled_at=j.started_at,
                priority=j.priority,
                preemptions=j.preemptions,
                detailed=True,
            )
            for j in jobs
        ),
        read_at=now,
    )


def probe(queue: LiveQueue, share: str, instance_type: str, count: int) -> tuple[bool, bool]:
    """(started, preempted anything): one pass with a job of ``count`` at the share's front."""
    job = Job("probe", share, instance_type, count, priority=FRONT, submitted_at=queue.read_at)
    transitions = schedule(queue.model, [*queue.engine_jobs(), job], queue.read_at)
    started = any(t.job_id == "probe" and t.status is JobStatus.SCHEDULED for t in transitions)
    preempted = any(t.preempted_attempt is not None for t in transitions)
    return started, preempted


@settings(deadline=None, max_examples=300)
@given(runs())
def test_lent_capacity_adds_up_to_borrowed_capacity_per_type(
    run: tuple[QueueModel, list[Job], float],
) -> None:
    status = queue_status(live(*run))
    for t in TYPES:
        rows = [r for s in status.shares for r in s.capacity if r.instance_type == t]
        borrowed = sum(r.borrowed for r in rows)
        assert sum((r.lent for r in rows), Fraction(0)) == borrowed
        pairs = [p.instances for p in status.borrowing if p.instance_type == t]
        assert sum(pairs, Fraction(0)) == borrowed
        for row in rows:  # nobody lends more than it has idle
            assert row.lent <= row.idle


@settings(deadline=None, max_examples=300)
@given(runs())
def test_headroom_is_the_largest_job_that_starts_without_preempting(
    run: tuple[QueueModel, list[Job], float],
) -> None:
    queue = live(*run)
    # the snapshot is a fixpoint: a pass over it alone starts and preempts nothing
    again = schedule(queue.model, queue.engine_jobs(), queue.read_at)
    assert not [t for t in again if t.status is JobStatus.SCHEDULED or t.preempted_attempt]
    for share in queue_status(queue, wait_code=lambda q, j: None).shares:
        for row in share.capacity:
            room = row.headroom
            assert room is not None
            if room > 0:
                assert probe(queue, share.name, row.instance_type, room) == (True, False)
            started, preempted = probe(queue, share.name, row.instance_type, room + 1)
            assert not started or preempted
