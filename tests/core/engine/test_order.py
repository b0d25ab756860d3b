"""The order of jobs comes from their data alone: the order the engine is handed them in
never changes a decision (docs/scheduling.md, "The order of jobs")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import given, settings, strategies as st

from quotactl.core.engine import Job, JobStatus, QueueEngine, QueueModel, ShareModel
from quotactl.core.engine.order import dispatch_key, submission_rank, victim_key
from quotactl.core.resources.desired import Strategy

if TYPE_CHECKING:
    import random

T = "ml.g5.xlarge"
QUEUE = QueueModel(
    "q",
    {T: 4},
    (
        ShareModel("a", {T: 2}, Strategy.LEND_AND_BORROW, 100, in_share_preemption=True),
        ShareModel("b", {T: 2}, Strategy.LEND),
    ),
)
ID = st.sampled_from(["0a", "3f", "9c", "c1", "f0", "ab-1", "ab-10", "ab-2"])
job_st = st.tuples(
    st.sampled_from("ab"), st.integers(1, 2), st.integers(0, 2), st.sampled_from([0.0, 0.0004, 1.0])
)


def _run(specs: list[tuple[str, str, int, int, float]], order: list[int]) -> list[object]:
    """Load the jobs (all RUNNABLE) in ``order``, run a pass, raise one job, run the clock."""
    engine = QueueEngine(QUEUE)
    jobs = [
        Job(job_id, share, T, count, priority, created, 30.0, JobStatus.RUNNABLE, created)
        for job_id, share, count, priority, created in specs
    ]
    engine.load([jobs[i] for i in order])
    engine.schedule(1.0)
    waiting = [j for j in jobs if j.status is JobStatus.RUNNABLE]
    if waiting:
        engine.set_priority(min(waiting, key=lambda j: j.job_id).job_id, 9)
    engine.schedule(1.0)
    engine.advance_to(200.0)
    return [(t.job_id, t.at, t.status, t.reason) for t in engine.transitions or []]


@settings(max_examples=150, deadline=None)
@given(
    jobs=st.dictionaries(ID, job_st, min_size=1, max_size=8),
    shuffle=st.randoms(use_true_random=False),
)
def test_the_order_jobs_are_handed_over_in_decides_nothing(
    jobs: dict[str, tuple[str, int, int, float]], shuffle: random.Random
) -> None:
    specs = [(job_id, *rest) for job_id, rest in sorted(jobs.items())]
    forward = list(range(len(specs)))
    backward = forward[::-1]
    mixed = forward[:]
    shuffle.shuffle(mixed)
    expected = _run(specs, forward)
    assert _run(specs, backward) == expected
    assert _run(specs, mixed) == expected


def test_submission_rank_orders_by_millisecond_then_job_id() -> None:
    assert submission_rank(1.0, "b") < submission_rank(1.0004, "c")  # same millisecond
    assert submission_rank(1.0004, "c") > submission_rank(1.0, "b")
    assert submission_rank(1.0, "z") < submission_rank(1.001, "a")
    assert submission_rank(1.0, "ab-10") < submission_rank(1.0, "ab-2")  # text, not number


def test_dispatch_and_victim_keys_are_the_documented_orders() -> None:
    jobs = [(0, 5.0, 1.0, "b"), (0, 5.0, 1.0, "a"), (1, 9.0, 2.0, "c"), (0, 7.0, 3.0, "d")]
    by_dispatch = sorted(jobs, key=lambda j: dispatch_key(j[0], j[2], j[3]))
    assert [j[3] for j in by_dispatch] == ["c", "a", "b", "d"]
    by_victim = sorted(jobs, key=lambda j: victim_key(*j))
    # lowest priority, then latest started, then latest created, then the higher ID
    assert [j[3] for j in by_victim] == ["d", "b", "a", "c"]
