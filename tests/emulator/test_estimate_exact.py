"""With every duration known and nothing new arriving, every estimate is the actual start.

The account runs the default timing model (120 s SCHEDULED, 30 s STARTING, 20 s preemption
windows). Jobs are submitted through boto3 with their run time in the ``quotactl:duration``
tag; the estimates are read (the library call behind ``jobs --eta``), then the clock moves on
as ``local advance`` moves it, and every job's first start after the read is compared with
its estimate, to the second.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.core.engine import TIMING
from tests.emulator.estimate_support import G5, P5, DemoAccount, default_timing

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.core.estimate import Estimates

KINDS = (  # (share, instance type, most instances a job may ask for) in configs/demo
    ("nlp", P5, 3),
    ("research", P5, 2),
    ("research", G5, 3),
    ("vision-experiments", P5, 3),
    ("vision-experiments", G5, 3),
    ("ranking", G5, 3),
)


def _compare(account: DemoAccount, estimates: Estimates) -> Iterator[tuple[str, float, float]]:
    """(name, estimated p50, actual start) of every job that had an estimate."""
    (queue,) = estimates.queues
    names = {job_id: name for name, job_id in account.ids.items()}
    account.advance(20 * 86400)
    for job_id, eta in queue.etas.items():
        assert eta.p50 is not None, names[job_id]
        assert eta.p10 == eta.p50 == eta.p90, names[job_id]
        assert eta.basis.word == "known"
        actual = account.first_start_after(names[job_id], queue.now)
        assert actual is not None, names[job_id]
        yield names[job_id], eta.p50, actual


def test_estimates_are_exact_behind_others_on_borrowed_capacity_and_behind_a_reclaim(
    tmp_path: Path,
) -> None:
    """One queue with each case: jobs waiting in their share's order (ranking), a job that
    starts by borrowing nlp's capacity once nlp's job ends (vision-experiments), and a job
    that takes research's capacity back from a borrower when it reaches the front of its
    share (research, behind its share's jobs of another type), after the preemption window."""
    with default_timing():
        account = DemoAccount(tmp_path / "state.db")
        try:
            # behind others: ranking (RESERVE, 4 x g5) runs one 3-instance job at a time
            for i, minutes in enumerate((20, 15, 10), start=1):
                account.submit(f"rank-{i}", "ranking", G5, 3, duration=minutes * 60, gap=1)
            # nlp fills its own 4 x p5 for 30 minutes
            account.submit("nlp-1", "nlp", P5, 4, duration=1800, gap=1)
            # vision runs on its own 2 x p5 and borrows research's idle 2 x p5
            account.submit("vision-own", "vision-experiments", P5, 2, duration=7200, gap=1)
            account.submit("vision-borrowing", "vision-experiments", P5, 2, duration=7200, gap=1)
            # research's g5 jobs hold back its p5 job, whose capacity is lent out meanwhile
            account.submit("research-g5-1", "research", G5, 4, duration=600, gap=1)
            account.submit("research-g5-2", "research", G5, 4, duration=300, gap=1)
            account.submit("research-p5", "research", P5, 2, duration=900, gap=1)
            # vision's next job can only borrow, once nlp's job has ended
            account.submit("vision-next", "vision-experiments", P5, 3, duration=600, gap=1)
            account.advance(1)
            estimates = account.estimates()
            (queue,) = estimates.queues
            assert {"rank-2", "rank-3", "research-p5", "vision-next"} <= {
                name for name, job_id in account.ids.items() if job_id in queue.etas
            }
            found = {name: (eta, actual) for name, eta, actual in _compare(account, estimates)}
            for name, (eta, actual) in found.items():
                assert abs(eta - actual) < 1.0, (name, eta - queue.now, actual - queue.now)
            reclaimed = account.job("vision-borrowing")
            assert reclaimed["preemptionSummary"]["preemptedAttemptCount"] == 1
            # behind the reclaim's window: research-p5 reached its share's front when
            # research-g5-2 was dispatched, and started a preemption window (20 s) later
            window = found["research-p5"][1] - found["research-g5-2"][1]
            assert abs(window - TIMING.preemption_seconds) < 1.0
            # the borrowed start: vision-next starts when nlp-1 ends (its 4 x p5 go idle), once
            # SCHEDULED
            nlp = account.job("nlp-1")["attempts"][0]
            assert (
                abs(found["vision-next"][1] - (nlp["stoppedAt"] / 1000 + TIMING.scheduled_seconds))
                < 1.0
            )
        finally:
            account.close()


Drawn = tuple[int, tuple[str, str], int, int, int]


def _row(kind: tuple[str, str, int]) -> st.SearchStrategy[Drawn]:
    return st.tuples(
        st.integers(0, 900),  # seconds after the previous submission
        st.just(kind[:2]),
        st.integers(1, kind[2]),  # instances
        st.integers(60, 5400),  # duration
        st.integers(0, 3),  # priority
    )


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(KINDS).flatmap(_row), min_size=4, max_size=24), st.integers(0, 900))
def test_every_estimate_of_a_generated_queue_is_its_actual_start(
    drawn: list[Drawn], later: int
) -> None:
    """Any queue of jobs that fit their shares, read at any moment (``later`` seconds after
    the last submission, so some jobs are part-way through a run)."""
    with default_timing(), tempfile.TemporaryDirectory() as folder:
        account = DemoAccount(Path(folder) / "state.db")
        try:
            for line, (gap, (share, itype), count, duration, priority) in enumerate(drawn):
                account.advance(gap)
                account.submit(
                    f"j{line}", share, itype, count, duration=duration, priority=priority
                )
            account.advance(later)
            estimates = account.estimates()
            for name, eta, actual in _compare(account, estimates):
                assert abs(eta - actual) < 1.0, (name, eta, actual)
        finally:
            account.close()


def test_positions_in_the_queue_are_the_snapshots_front_of_queue(tmp_path: Path) -> None:
    """The queue's dispatch order is the one GetJobQueueSnapshot reports; share order is the
    share's own (priority, then submission)."""
    with default_timing():
        account = DemoAccount(tmp_path / "state.db")
        try:
            for i in range(12):
                share, itype, most = KINDS[i % len(KINDS)]
                account.submit(f"j{i}", share, itype, most, duration=3600, priority=i % 3, gap=1)
            estimates = account.estimates()
            (queue,) = estimates.queues
            front = account.batch.get_job_queue_snapshot(jobQueue="training")["frontOfQueue"]
            order = [j["jobArn"].rsplit("/", 1)[-1] for j in front["jobs"]]
            assert len(order) >= 3
            by_arn = {
                account.job(name)["jobArn"].rsplit("/", 1)[-1]: job_id
                for name, job_id in account.ids.items()
            }
            for place, arn in enumerate(order, start=1):
                assert queue.etas[by_arn[arn]].position_in_queue == place
            for share in {k[0] for k in KINDS}:
                places = sorted(
                    (eta.position_in_share, -account.job(name)["schedulingPriority"], name)
                    for name, job_id in account.ids.items()
                    if (eta := queue.etas.get(job_id)) is not None
                    and eta.position_in_share is not None
                    and account.job(name)["quotaShareName"] == share
                )
                assert [p[0] for p in places] == list(range(1, len(places) + 1))
                assert [p[1] for p in places] == sorted(p[1] for p in places)
        finally:
            account.close()
