"""The scenario table (``engine_scenarios.py``) run against the engine, two ways.

``SnapshotDriver`` keeps jobs itself and calls the stateless API after every step, exactly as
the emulator does with its database (with the emulator's phase times); ``LiveDriver`` keeps
one ``QueueEngine`` alive, as the simulator does (phases instantaneous). Both must show what
the AWS documentation and the SDK notebook show.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from quotactl.core.engine import (
    INSTANT,
    TIMING,
    Job,
    JobStatus,
    QueueEngine,
    QueueModel,
    ShareModel,
    Transition,
    schedule,
)
from quotactl.core.engine.model import PREEMPTING, RESERVED, Window
from quotactl.core.resources.desired import Strategy
from tests.core.engine.engine_scenarios import (
    ACTIVE,
    MISCONFIGURATION,
    SCENARIOS,
    Advance,
    Expect,
    MisconfigCase,
    Scenario,
    SetLimits,
    SetPriority,
    Share,
    Submit,
)

_ACTIVE = {JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.RUNNING}


def queue_model(environment: dict[str, int] | object, shares: tuple[Share, ...]) -> QueueModel:
    return QueueModel(
        name="q",
        capacity=dict(environment),  # type: ignore[arg-type]
        shares=tuple(
            ShareModel(
                s.name, dict(s.limits), Strategy(s.strategy), s.borrow_limit, s.in_share_preemption
            )
            for s in shares
        ),
    )


def new_job(step: Submit, now: float, number: int) -> Job:
    """The scenario's job; its ID sorts like its place in the table, since jobs submitted in
    the same millisecond with the same priority are ordered by job ID."""
    return Job(
        job_id=f"{number:03d}-{step.name}",
        share=step.share,
        instance_type=step.instance_type,
        count=step.count,
        priority=step.priority,
        submitted_at=now,
        run_seconds=step.duration,
        status_since=now,
        preemption_retries=step.preemption_retries,
    )


class SnapshotDriver:
    """Jobs live here; every step is one stateless call, as in the emulator."""

    def __init__(self, scenario: Scenario) -> None:
        self.queue = queue_model(scenario.environment, scenario.shares)
        self.jobs: dict[str, Job] = {}
        self.names: dict[str, str] = {}  # job ID -> the scenario's name
        self.now = 0.0

    def submit(self, step: Submit) -> None:
        job = new_job(step, self.now, len(self.jobs))
        self.jobs[step.name] = job
        self.names[job.job_id] = step.name
        self._schedule()

    def set_priority(self, name: str, priority: int) -> None:
        self.jobs[name].priority = priority
        self._schedule()

    def set_limits(self, share: str, limits: dict[str, int]) -> None:
        shares = tuple(
            replace(s, limits=limits) if s.name == share else s for s in self.queue.shares
        )
        self.queue = replace(self.queue, shares=shares)
        self._schedule()

    def advance(self, seconds: float) -> None:
        """A fresh engine from the snapshot runs the clock on, as the emulator's rebuilt one."""
        end = self.now + seconds
        engine = QueueEngine(self.queue, timing=TIMING)
        engine.now = self.now
        engine.load(job.copy() for job in self.jobs.values())
        engine.advance_to(end)
        self._apply(engine.transitions or [])
        self.now = end

    def observe(self, name: str) -> Job:
        return self.jobs[name]

    def _schedule(self) -> None:
        self._apply(schedule(self.queue, self.jobs.values(), self.now, timing=TIMING))

    def _apply(self, transitions: list[Transition]) -> None:
        for tr in transitions:
            job = self.jobs[self.names[tr.job_id]]
            job.status = tr.status
            job.status_since = tr.at
            job.status_reason = tr.reason
            if tr.window == PREEMPTING:  # a window opens; what a snapshot keeps of it
                assert tr.preempted_attempt is not None
                job.window = Window(PREEMPTING, tr.at, tr.preempted_attempt.preempted_by)
                continue
            if tr.window == RESERVED:
                job.window = Window(RESERVED, tr.at)
                continue
            job.window = None
            if tr.status is JobStatus.SCHEDULED:
                job.started_at = tr.at
                job.first_started_at = job.first_started_at or tr.at
            if tr.preempted_attempt is not None:
                job.preemptions += 1


class LiveDriver:
    """One engine kept alive across steps, as in the simulator."""

    def __init__(self, scenario: Scenario) -> None:
        self.queue = queue_model(scenario.environment, scenario.shares)
        self.engine = QueueEngine(self.queue, timing=INSTANT)
        self.jobs: dict[str, Job] = {}

    def submit(self, step: Submit) -> None:
        job = new_job(step, self.engine.now, len(self.jobs))
        self.jobs[step.name] = job
        self.engine.submit(job)
        self.engine.schedule(self.engine.now)

    def set_priority(self, name: str, priority: int) -> None:
        self.engine.set_priority(self.jobs[name].job_id, priority)
        self.engine.schedule(self.engine.now)

    def set_limits(self, share: str, limits: dict[str, int]) -> None:
        shares = tuple(
            replace(s, limits=limits) if s.name == share else s for s in self.queue.shares
        )
        self.queue = replace(self.queue, shares=shares)
        now = self.engine.now
        self.engine = QueueEngine(self.queue, timing=INSTANT)
        self.engine.now = now
        self.engine.load(self.jobs.values())
        self.engine.schedule(now)

    def advance(self, seconds: float) -> None:
        self.engine.advance_to(self.engine.now + seconds)

    def observe(self, name: str) -> Job:
        return self.jobs[name]


Driver = SnapshotDriver | LiveDriver
DRIVERS = [pytest.param(SnapshotDriver, id="stateless"), pytest.param(LiveDriver, id="live")]


def run_steps(driver: Driver, scenario: Scenario) -> None:
    for number, step in enumerate(scenario.steps, 1):
        if isinstance(step, Submit):
            driver.submit(step)
        elif isinstance(step, SetPriority):
            driver.set_priority(step.name, step.priority)
        elif isinstance(step, SetLimits):
            driver.set_limits(step.share, dict(step.limits))
        elif isinstance(step, Advance):
            driver.advance(step.seconds)
        else:
            check(driver, step, f"{scenario.id} step {number}")


def check(driver: Driver, expect: Expect, where: str) -> None:
    seen = {}
    for name in expect.status:
        status = driver.observe(name).status
        seen[name] = ACTIVE if status in _ACTIVE else str(status)
    assert seen == dict(expect.status), where
    reasons = {name: driver.observe(name).status_reason for name in expect.reason}
    assert reasons == dict(expect.reason), where
    counts = {name: driver.observe(name).preemptions for name in expect.preemptions}
    assert counts == dict(expect.preemptions), where


@pytest.mark.parametrize("driver_type", DRIVERS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_scenario_plays_out_as_documented(
    scenario: Scenario, driver_type: type[SnapshotDriver] | type[LiveDriver]
) -> None:
    run_steps(driver_type(scenario), scenario)


@pytest.mark.parametrize("driver_type", DRIVERS)
@pytest.mark.parametrize("case", MISCONFIGURATION, ids=lambda c: c.id)
def test_misconfigured_job_stays_runnable_with_aws_reason_and_blocks_its_share(
    case: MisconfigCase, driver_type: type[SnapshotDriver] | type[LiveDriver]
) -> None:
    scenario = Scenario(case.id, case.environment, case.shares, ())
    driver = driver_type(scenario)
    driver.submit(case.job)
    behind = Submit("behind", case.job.share, instance_type=next(iter(case.shares[0].limits)))
    driver.submit(behind)
    driver.advance(86_400)
    stuck = driver.observe(case.job.name)
    assert (stuck.status, stuck.status_reason) == (JobStatus.RUNNABLE, case.reason)
    assert driver.observe("behind").status is JobStatus.RUNNABLE


def test_a_misconfiguration_reason_is_cleared_once_the_config_lets_the_job_run() -> None:
    share = ShareModel("A", {"ml.g5.xlarge": 1})
    running = Job("small", "A", "ml.g5.xlarge", 1, status=JobStatus.RUNNING, run_seconds=600)
    big = Job("big", "A", "ml.g5.xlarge", 2, submitted_at=1.0, status=JobStatus.RUNNABLE)
    [stuck] = schedule(QueueModel("q", {"ml.g5.xlarge": 4}, (share,)), [running, big], 10)
    big.status_reason = stuck.reason  # what the caller stores
    grown = QueueModel("q", {"ml.g5.xlarge": 4}, (replace(share, limits={"ml.g5.xlarge": 2}),))
    # big fits its share now but waits for small: the stored reason is replaced by none.
    assert [(t.job_id, t.status, t.reason) for t in schedule(grown, [running, big], 20)] == [
        ("big", JobStatus.RUNNABLE, None)
    ]
