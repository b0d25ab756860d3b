"""Properties of ``status`` on random queues run by the scheduling engine (hypothesis).

A random queue takes a random stream of jobs through the engine; at the end, the jobs are
turned into the ``LiveQueue`` a read of the account would give, and ``status`` is computed:
- per instance type, the lent capacity adds up to exactly the borrowed capacity;
- under a config history (limits lowered or raised, strategies switched, a lender turned
  RESERVE while its capacity is borrowed, the engine running on between changes), status
  still adds up: per instance type Σ lent + unattributed = Σ borrowed, each borrower's pairs
  add up to its borrowed, and so do the figures as displayed (text and JSON, rounded by
  largest remainders), and no summary line contradicts a row;
- each share's headroom is exact: a job of ``headroom`` instances, put at the front of the
  share, starts in the next pass without preempting anything, and one of ``headroom + 1``
  does not (it waits, or it starts only by preempting).
"""

from __future__ import annotations

import io
from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings, strategies as st
from rich.console import Console

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
from quotactl.core.status.report import QueueStatus, StatusReport
from quotactl.render.status import print_status
from quotactl.render.status_json import status_document
from quotactl.render.status_parts import shown_parts

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


@st.composite
def changed(draw: st.DrawFn, queue: QueueModel) -> QueueModel:
    """The queue after one change of its config: some shares' limits lowered or raised, their
    strategy switched (a lender may turn RESERVE while its capacity is borrowed)."""
    shares = []
    for share in queue.shares:
        if draw(st.booleans()):
            shares.append(share)
            continue
        limits = {t: max(0, n + draw(st.integers(-4, 2))) for t, n in share.limits.items()}
        shares.append(replace(share, limits=limits, strategy=draw(st.sampled_from(list(Strategy)))))
    return replace(queue, shares=tuple(shares))


@st.composite
def histories(draw: st.DrawFn) -> tuple[QueueModel, list[Job], float]:
    """A queue run through a random config history: jobs, a change, more jobs (the engine
    under the new config), another change; the jobs as they stand after the last change."""
    queue, jobs, now = draw(runs())
    for epoch in range(draw(st.integers(1, 3))):
        queue = draw(changed(queue))
        if epoch and draw(st.booleans()):
            continue  # two changes in a row, no pass between them
        engine = QueueEngine(queue, timing=INSTANT)
        engine.now = now
        engine.load(jobs)
        for index in range(draw(st.integers(0, 6))):
            share = draw(st.sampled_from(queue.shares))
            engine.submit(
                Job(
                    job_id=f"e{epoch}j{index:03d}",
                    share=share.name,
                    instance_type=draw(st.sampled_from(sorted(share.limits))),
                    count=draw(st.integers(1, 4)),
                    priority=draw(st.integers(0, 3)),
                    submitted_at=now,
                    run_seconds=draw(st.sampled_from([60.0, 600.0, None])),
                )
            )
            engine.schedule(now)
            now += draw(st.sampled_from([0.0, 10.0, 45.0]))
            engine.advance_to(now)
        engine.schedule(now)
        jobs = engine.jobs()
    if draw(st.booleans()):
        queue = draw(changed(queue))  # the status is read right after a change
    return queue, jobs, now


def _adds_up(status: QueueStatus) -> None:
    types = {r.instance_type for s in status.shares for r in s.capacity}
    for t in types:
        rows = [(s.name, r) for s in status.shares for r in s.capacity if r.instance_type == t]
        borrowed = sum(r.borrowed for _, r in rows)
        lent = sum((r.lent for _, r in rows), Fraction(0))
        assert lent + status.unattributed(t) == borrowed
        for name, row in rows:
            assert row.lent <= row.idle
            mine = [
                p.instances for p in status.borrowing if (p.instance_type, p.borrower) == (t, name)
            ]
            assert sum(mine, Fraction(0)) == row.borrowed
            assert all(n > 0 for n in mine)
        (total,) = [r for r in status.totals if r.instance_type == t]
        assert (total.borrowed, total.lent) == (borrowed, lent)


def cents(value: float) -> int:
    return round(Fraction(str(value)) * 100)


def _shown_adds_up(status: QueueStatus) -> None:
    """The JSON document and the text view, as a reader adds them up."""
    document = status_document(status_of_one(status))
    (queue,) = document["queues"]
    for t in {c["instance_type"] for s in queue["shares"] for c in s["capacity"]}:
        rows = [
            (s["name"], c)
            for s in queue["shares"]
            for c in s["capacity"]
            if c["instance_type"] == t
        ]
        pairs = [p for p in queue["borrowing"] if p["instance_type"] == t]
        borrowed = sum(c["borrowed"] for _, c in rows)
        shown = sum(cents(c["lent"]) for _, c in rows)
        shown += sum(cents(p["instances"]) for p in pairs if p["lender"] is None)
        assert shown == 100 * borrowed
        for name, row in rows:
            mine = [cents(p["instances"]) for p in pairs if p["borrower"] == name]
            assert sum(mine) == 100 * row["borrowed"]
    out = io.StringIO()
    print_status(Console(file=out, width=400, color_system=None), status_of_one(status))
    text = out.getvalue()
    borrowing = any(r.borrowed for s in status.shares for r in s.capacity)
    assert ("No share is borrowing." in text) == (not borrowing)
    assert ("attributed to no lender" in text) == any(p.lender is None for p in status.borrowing)


def status_of_one(status: QueueStatus) -> StatusReport:
    return StatusReport(0.0, (status,), ())


@settings(deadline=None, max_examples=200)
@given(histories())
def test_status_adds_up_whatever_the_history_of_the_config(
    run: tuple[QueueModel, list[Job], float],
) -> None:
    status = queue_status(live(*run), wait_code=lambda q, j: None)
    _adds_up(status)
    _shown_adds_up(status)


@given(
    st.lists(st.fractions(min_value=0, max_value=20, max_denominator=12), max_size=8),
    st.integers(0, 2),
)
def test_displayed_parts_add_up_to_the_displayed_whole(parts: list[Fraction], places: int) -> None:
    shown = shown_parts(parts, places)
    unit = Fraction(1, 10**places)
    assert sum(shown, Fraction(0)) == round(sum(parts, Fraction(0)) / unit) * unit
    assert all(abs(a - b) < unit for a, b in zip(shown, parts, strict=True))
