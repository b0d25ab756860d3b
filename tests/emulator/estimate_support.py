"""An emulated account on configs/demo with the default timing model, for the estimate tests.

Jobs go in through boto3 (SubmitServiceJob), time moves as `local advance` moves it, and the
estimates come from the library call behind `jobs --eta` (``api.estimate_jobs``). Every
process here uses the default timing (120 s SCHEDULED, 30 s STARTING), not the suite's zero.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import quotactl
from quotactl import api
from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import TIMING, TIMING_VARIABLE
from quotactl.emulator import Emulator
from tests.conftest import REPO_ROOT, TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from quotactl.core.estimate import Estimates

DEMO = REPO_ROOT / "configs" / "demo"
P5, G5 = "ml.p5.48xlarge", "ml.g5.12xlarge"


@contextmanager
def default_timing() -> Iterator[None]:
    """The emulator's default timing model for the block (the suite sets zero start-up)."""
    saved = os.environ.pop(TIMING_VARIABLE, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[TIMING_VARIABLE] = saved


class DemoAccount:
    """configs/demo applied to a fresh emulated account; jobs by name."""

    def __init__(self, state: Path) -> None:
        self.state = state
        with quotactl.connect("local", state=state) as account:
            desired = api.load([DEMO]).desired
            result = api.apply(account, desired, show=lambda plan: None, approve=lambda p: None)
            assert result is not None
            assert result.ok
        self.emulator = Emulator(state, timing=TIMING)
        target = Target("local", state, timing=TEST_TIMING)
        self.batch = client(target, session=make_session(target, emulator=self.emulator))
        self.ids: dict[str, str] = {}
        self.emulator.advance(60)  # the account settles

    def close(self) -> None:
        self.batch.close()
        self.emulator.close()

    def submit(
        self,
        name: str,
        share: str,
        instance_type: str = P5,
        count: int = 1,
        *,
        duration: float | None = None,
        max_runtime: int = 86400,
        priority: int = 0,
        gap: float = 0.0,
    ) -> str:
        """Submit a job ``gap`` seconds after the previous one (jobs submitted in the same
        millisecond are ordered by their job IDs, which are random)."""
        if gap:
            self.advance(gap)
        params: dict[str, Any] = {
            "jobName": name,
            "jobQueue": "training",
            "serviceJobType": "SAGEMAKER_TRAINING",
            "serviceRequestPayload": payload(instance_type, count, max_runtime=max_runtime),
            "quotaShareName": share,
            "schedulingPriority": priority,
        }
        if duration is not None:
            params["tags"] = {"quotactl:duration": str(int(duration))}
        job_id: str = self.batch.submit_service_job(**params)["jobId"]
        self.ids[name] = job_id
        return job_id

    def advance(self, seconds: float) -> None:
        self.emulator.advance(seconds)

    def settle_windows(self) -> None:
        """Move on until no preemption window is under way: AWS does not say which job a
        window's capacity is held for, so an estimate read inside one is approximate."""
        for _ in range(20):
            pages = self.batch.get_paginator("list_service_jobs")
            busy = any(
                (job.get("statusReason") or "").startswith("PREEMPTION_IN_PROGRESS")
                for status in ("SCHEDULED", "STARTING", "RUNNING")
                for page in pages.paginate(jobQueue="training", jobStatus=status)
                for job in page["jobSummaryList"]
            )
            if not busy:
                return
            self.advance(5)
        raise AssertionError("a preemption window is still under way after 100 s")

    def estimates(self, history: Path | None = None) -> Estimates:
        with quotactl.connect("local", state=self.state) as account:
            return api.estimate_jobs(account, ["training"], history_file=history)

    def job(self, name: str) -> dict[str, Any]:
        return dict(self.batch.describe_service_job(jobId=self.ids[name]))

    def first_start_after(self, name: str, moment: float) -> float | None:
        """The startedAt (epoch seconds) of the job's first attempt that started after
        ``moment``, if any."""
        starts = [
            a["startedAt"] / 1000
            for a in self.job(name).get("attempts", [])
            if a.get("startedAt") is not None and a["startedAt"] / 1000 >= moment - 0.001
        ]
        return min(starts) if starts else None

    def cancel(self, name: str) -> None:
        self.batch.terminate_service_job(jobId=self.ids[name], reason="ended early")
