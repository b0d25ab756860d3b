"""Preemption and termination windows, through real boto3: what a client sees while AWS stops a job.

AWS shows a preemption victim still RUNNING, its statusReason prefixed ``PREEMPTION_IN_PROGRESS:``,
until the preemption completes (its "Batch Service Job Preemption Started" event, 20 s before
the "Completed" one); the job that reclaimed the capacity starts only then. A terminated job
carries ``isTerminated`` while it stops. The emulator's default windows are 20 s and 120 s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.aws.live import describe_all, read_queue
from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import Timing
from quotactl.core.jobs.placement import preview
from quotactl.core.jobs.why import wait_of
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE, make_queue, payload

if TYPE_CHECKING:
    from pathlib import Path

REASON = "Cross-share preemption triggered to reclaim borrowed capacity"
QUICK = Timing(0.0, 0.0, True, 20.0, 120.0)  # no start-up: the windows alone


def _batch(emulator: Emulator, state: Path) -> Any:
    target = Target("local", state, timing=TEST_TIMING)
    return client(target, session=make_session(target, emulator=emulator))


def _submit(batch: Any, name: str, share: str, count: int, seconds: int = 3600) -> str:
    out = batch.submit_service_job(
        jobName=name,
        jobQueue="q",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(TYPE, count, max_runtime=86400),
        quotaShareName=share,
        tags={"quotactl:duration": str(seconds)},
    )
    return str(out["jobId"])


def _borrowing(batch: Any, emulator: Emulator) -> str:
    """Share ``b`` borrows all of ``a``'s idle capacity with one RUNNING job."""
    make_queue(
        batch,
        "q",
        capacity={TYPE: 4},
        shares={
            "a": {"limit": 2, "strategy": "LEND"},
            "b": {"limit": 2, "strategy": "LEND_AND_BORROW", "borrow": -1},
        },
    )
    job = _submit(batch, "borrower", "b", 4)
    emulator.advance(60)
    assert batch.describe_service_job(jobId=job)["status"] == "RUNNING"
    return job


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _now(emulator: Emulator) -> float:
    with emulator.store.transaction(write=False) as tx:
        _, _, clock, _ = tx.account_row()
        return float(clock.at(emulator.wall()))


def test_the_victim_runs_on_with_preemption_in_progress_and_the_reclaimer_starts_at_its_end(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        victim = _borrowing(batch, emulator)
        reclaimer = _submit(batch, "reclaimer", "a", 2)
        emulator.advance(1)
        chosen = _now(emulator) - 1  # the pass that took the submission
        seen = batch.describe_service_job(jobId=victim)
        assert seen["status"] == "RUNNING"
        assert seen["statusReason"] == f"PREEMPTION_IN_PROGRESS: {REASON}"
        assert "preemptionSummary" not in seen
        assert batch.describe_service_job(jobId=reclaimer)["status"] == "RUNNABLE"
        listed = batch.list_service_jobs(jobQueue="q", jobStatus="RUNNING")["jobSummaryList"]
        assert [j["jobId"] for j in listed] == [victim]

        emulator.advance(18)  # 19 s into the window: nothing has moved
        assert batch.describe_service_job(jobId=victim)["status"] == "RUNNING"
        assert batch.describe_service_job(jobId=reclaimer)["status"] == "RUNNABLE"

        emulator.advance(2)  # past its end
        gone = batch.describe_service_job(jobId=victim)
        assert gone["status"] == "RUNNABLE"
        assert gone["statusReason"] == REASON
        (attempt,) = gone["preemptionSummary"]["recentPreemptedAttempts"]
        assert attempt["stoppedAt"] == _ms(chosen + 20)
        assert gone["attempts"][-1]["stoppedAt"] == _ms(chosen + 20)
        started = batch.describe_service_job(jobId=reclaimer)
        assert started["status"] in ("SCHEDULED", "STARTING", "RUNNING")
        assert started["scheduledAt"] == _ms(chosen + 20)
        batch.close()


def test_a_victim_in_its_window_is_not_chosen_again(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        make_queue(
            batch,
            "q",
            capacity={TYPE: 4},
            shares={
                "a": {"limit": 2, "strategy": "LEND"},
                "b": {"limit": 2, "strategy": "LEND_AND_BORROW", "borrow": -1},
            },
        )
        own = _submit(batch, "own", "b", 2)
        emulator.advance(1)
        older = _submit(batch, "older", "b", 1)
        emulator.advance(1)
        newer = _submit(batch, "newer", "b", 1)
        emulator.advance(60)
        _submit(batch, "first", "a", 1)
        emulator.advance(1)
        leaving = f"PREEMPTION_IN_PROGRESS: {REASON}"
        # the most recently started borrower goes first
        assert batch.describe_service_job(jobId=newer)["statusReason"] == leaving
        _submit(batch, "second", "a", 1)
        emulator.advance(1)
        # ``newer`` is leaving already: the next borrower is taken, never ``newer`` twice
        assert batch.describe_service_job(jobId=older)["statusReason"] == leaving
        assert batch.describe_service_job(jobId=own).get("statusReason") is None
        emulator.advance(30)
        for job in (newer, older):
            summary = batch.describe_service_job(jobId=job)["preemptionSummary"]
            assert summary["preemptedAttemptCount"] == 1
        assert batch.describe_service_job(jobId=own)["status"] == "RUNNING"
        batch.close()


def test_a_rebuilt_engine_keeps_the_window(tmp_path: Path) -> None:
    """Another process (here: another Emulator on the same file) sees the same window."""
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        victim = _borrowing(batch, emulator)
        reclaimer = _submit(batch, "reclaimer", "a", 2)
        emulator.advance(1)
        chosen = _now(emulator) - 1
        batch.close()
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        other = _submit(batch, "other", "a", 1)  # a free instance? none: the window holds them
        emulator.advance(5)
        assert batch.describe_service_job(jobId=victim)["status"] == "RUNNING"
        assert batch.describe_service_job(jobId=other)["status"] == "RUNNABLE"
        emulator.advance(30)
        assert batch.describe_service_job(jobId=reclaimer)["scheduledAt"] == _ms(chosen + 20)
        assert batch.describe_service_job(jobId=victim)["status"] == "RUNNABLE"
        batch.close()


def test_a_terminated_job_carries_is_terminated_while_it_stops(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        make_queue(batch, "q", capacity={TYPE: 2}, shares={"a": {"limit": 2}})
        job = _submit(batch, "doomed", "a", 2)
        waiting = _submit(batch, "next", "a", 2)
        emulator.advance(60)
        batch.terminate_service_job(jobId=job, reason="no longer needed")
        asked = _now(emulator)
        stopping = batch.describe_service_job(jobId=job)
        assert stopping["status"] == "RUNNING"
        assert stopping["isTerminated"] is True
        assert stopping["statusReason"] == "no longer needed"
        listed = batch.list_service_jobs(jobQueue="q", jobStatus="RUNNING")["jobSummaryList"]
        assert [j.get("isTerminated") for j in listed] == [True]
        emulator.advance(119)
        assert batch.describe_service_job(jobId=job)["status"] == "RUNNING"
        assert batch.describe_service_job(jobId=waiting)["status"] == "RUNNABLE"
        emulator.advance(2)
        done = batch.describe_service_job(jobId=job)
        assert done["status"] == "FAILED"
        assert done["isTerminated"] is True
        assert done["stoppedAt"] == done["attempts"][-1]["stoppedAt"] == _ms(asked + 120)
        assert batch.describe_service_job(jobId=waiting)["scheduledAt"] == _ms(asked + 120)
        batch.close()


def test_a_job_that_holds_nothing_is_terminated_at_once(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        make_queue(batch, "q", capacity={TYPE: 1}, shares={"a": {"limit": 1}})
        _submit(batch, "first", "a", 1)
        queued = _submit(batch, "queued", "a", 1)
        emulator.advance(60)
        assert batch.describe_service_job(jobId=queued)["status"] == "RUNNABLE"
        batch.terminate_service_job(jobId=queued, reason="not wanted")
        found = batch.describe_service_job(jobId=queued)
        assert (found["status"], found["isTerminated"]) == ("FAILED", True)
        batch.close()


def test_previews_during_a_window_see_the_victim_leaving(tmp_path: Path) -> None:
    """AWS shows the victim RUNNING with PREEMPTION_IN_PROGRESS, not whom its capacity is
    for: ``job why`` says the reclaimer waits for the window, and no preview takes the
    leaving job again."""
    state = tmp_path / "state.db"
    with Emulator(state, timing=QUICK) as emulator:
        batch = _batch(emulator, state)
        victim = _borrowing(batch, emulator)
        reclaimer = _submit(batch, "reclaimer", "a", 2)
        emulator.advance(1)
        queue = read_queue(batch, "q", describe=describe_all)
        wait = wait_of(queue, reclaimer)
        assert wait is not None
        assert "PREEMPTION_IN_PROGRESS" in wait.message
        placement = preview(queue, share="a", instance_type=TYPE, count=1, priority=0)
        assert victim not in {v.job_id for v in placement.victims}
        batch.close()
