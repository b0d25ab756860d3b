"""Plays the engine's scenario table (``tests/core/engine/engine_scenarios.py``) through boto3.

Each step becomes what a user or the SageMaker SDK does against the emulated account:
CreateSchedulingPolicy, CreateServiceEnvironment, CreateJobQueue and CreateQuotaShare (each
waited for until VALID), SubmitServiceJob with a CreateTrainingJob payload and the
``quotactl:duration`` tag, UpdateServiceJob, UpdateQuotaShare, and ``local advance`` on the
state file. Every check reads DescribeServiceJob, and ListServiceJobs and GetJobQueueSnapshot
must tell the same story.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.durations import format_duration
from tests.core.engine.engine_scenarios import (
    ACTIVE,
    Advance,
    Expect,
    Scenario,
    SetLimits,
    SetPriority,
    Share,
    Submit,
)
from tests.emulator.emulator_support import environment_status, payload, queue_status, wait_for

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tests.emulator.conftest import Account

ACTIVE_STATUSES = ("SCHEDULED", "STARTING", "RUNNING")
STATUSES = ("SUBMITTED", "RUNNABLE", *ACTIVE_STATUSES, "SUCCEEDED", "FAILED")
A_DAY = 86_400


def limits_of(limits: Mapping[str, int]) -> list[dict[str, Any]]:
    return [{"capacityUnit": u, "maxCapacity": n} for u, n in limits.items()]


class ApiDriver:
    """One scenario's queue in an emulated account, driven only through the Batch API."""

    def __init__(self, account: Account, scenario: Scenario, queue: str = "q") -> None:
        self.account = account
        self.client = account.client
        self.queue = queue
        self.arns: dict[str, str] = {}  # job name -> jobArn, in submission order
        self.shares: dict[str, str] = {}  # share name -> quotaShareArn
        self._create(scenario)

    # -- what a user does ---------------------------------------------------------------------
    def _create(self, scenario: Scenario) -> None:
        client, queue = self.client, self.queue
        policy = client.create_scheduling_policy(
            name=f"{queue}-quota", quotaSharePolicy={"idleResourceAssignmentStrategy": "FIFO"}
        )
        client.create_service_environment(
            serviceEnvironmentName=f"{queue}-env",
            serviceEnvironmentType="SAGEMAKER_TRAINING",
            capacityLimits=limits_of(scenario.environment),
        )
        wait_for(lambda: environment_status(client, f"{queue}-env"), "VALID")
        client.create_job_queue(
            jobQueueName=queue,
            priority=1,
            schedulingPolicyArn=policy["arn"],
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": f"{queue}-env"}],
            jobQueueType="SAGEMAKER_TRAINING",
        )
        wait_for(lambda: queue_status(client, queue), "VALID")
        for share in scenario.shares:
            self.shares[share.name] = self._create_share(share)
        for arn in self.shares.values():
            wait_for(lambda a=arn: client.describe_quota_share(quotaShareArn=a), "VALID")

    def _create_share(self, share: Share) -> str:
        sharing: dict[str, Any] = {"strategy": share.strategy}
        if share.strategy == "LEND_AND_BORROW":
            sharing["borrowLimit"] = share.borrow_limit
        preemption = "ENABLED" if share.in_share_preemption else "DISABLED"
        arn: str = self.client.create_quota_share(
            quotaShareName=share.name,
            jobQueue=self.queue,
            capacityLimits=limits_of(share.limits),
            resourceSharingConfiguration=sharing,
            preemptionConfiguration={"inSharePreemption": preemption},
        )["quotaShareArn"]
        return arn

    def submit(self, step: Submit) -> None:
        # A millisecond between submissions: jobs created in the same millisecond with the
        # same priority are ordered by job ID (random here), and the table means its order.
        self.advance(0.001)
        extra: dict[str, Any] = {}
        if step.preemption_retries is not None:
            extra["preemptionConfiguration"] = {
                "preemptionRetriesBeforeTermination": step.preemption_retries
            }
        job = self.client.submit_service_job(
            jobName=step.name,
            jobQueue=self.queue,
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(step.instance_type, step.count, max_runtime=A_DAY),
            quotaShareName=step.share,
            schedulingPriority=step.priority,
            tags={"quotactl:duration": format_duration(step.duration)},
            **extra,
        )
        self.arns[step.name] = job["jobArn"]
        for _ in range(10):  # poll until the first scheduling pass has seen the job
            if self.describe(step.name)["status"] != "SUBMITTED":
                return
        raise AssertionError(f"{step.name} stayed SUBMITTED")

    def set_priority(self, name: str, priority: int) -> None:
        self.client.update_service_job(jobId=self.arns[name], schedulingPriority=priority)

    def set_limits(self, share: str, limits: Mapping[str, int]) -> None:
        arn = self.shares[share]
        self.client.update_quota_share(quotaShareArn=arn, capacityLimits=limits_of(limits))
        wait_for(lambda: self.client.describe_quota_share(quotaShareArn=arn), "VALID")

    def advance(self, seconds: float) -> None:
        self.account.advance(seconds)

    # -- what a user sees ---------------------------------------------------------------------
    def describe(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = self.client.describe_service_job(jobId=self.arns[name])
        return found

    def settle(self) -> dict[str, dict[str, Any]]:
        """Describe every job until nothing changes any more (a client that polls)."""
        seen: dict[str, tuple[str, str | None]] = {}
        for _ in range(20):
            jobs = {name: self.describe(name) for name in self.arns}
            now = {n: (j["status"], j.get("statusReason")) for n, j in jobs.items()}
            if now == seen:
                return jobs
            seen = now
        raise AssertionError(f"jobs never settled: {seen}")

    def listed(self) -> dict[str, tuple[str, str | None]]:
        """ListServiceJobs, status by status: job name -> (status, statusReason)."""
        out = {}
        pages = self.client.get_paginator("list_service_jobs")
        for status in STATUSES:
            for page in pages.paginate(jobQueue=self.queue, jobStatus=status):
                for job in page["jobSummaryList"]:
                    out[job["jobName"]] = (job["status"], job.get("statusReason"))
        return out

    def snapshot(self) -> dict[str, Any]:
        found: dict[str, Any] = self.client.get_job_queue_snapshot(jobQueue=self.queue)
        return found


def play(driver: ApiDriver, scenario: Scenario) -> None:
    """Run every step of ``scenario``; each Expect is checked through the API."""
    for number, step in enumerate(scenario.steps, 1):
        if isinstance(step, Submit):
            driver.submit(step)
        elif isinstance(step, SetPriority):
            driver.set_priority(step.name, step.priority)
        elif isinstance(step, SetLimits):
            driver.set_limits(step.share, step.limits)
        elif isinstance(step, Advance):
            driver.advance(step.seconds)
        else:
            check(driver, step, f"{scenario.id} step {number}")


def check(driver: ApiDriver, expect: Expect, where: str) -> None:
    jobs = driver.settle()
    seen = {}
    for name in expect.status:
        status = jobs[name]["status"]
        seen[name] = ACTIVE if status in ACTIVE_STATUSES else status
    assert seen == dict(expect.status), where
    reasons = {name: jobs[name].get("statusReason") for name in expect.reason}
    assert reasons == dict(expect.reason), where
    counts = {name: preempted(jobs[name]) for name in expect.preemptions}
    assert counts == dict(expect.preemptions), where
    for name, job in jobs.items():
        check_preemption_summary(job, f"{where}: {name}")
    described = {n: (j["status"], j.get("statusReason")) for n, j in jobs.items()}
    assert driver.listed() == described, f"{where}: ListServiceJobs"
    check_snapshot(driver.snapshot(), jobs, list(driver.arns), f"{where}: snapshot")


def preempted(job: Mapping[str, Any]) -> int:
    return int(job.get("preemptionSummary", {}).get("preemptedAttemptCount", 0))


def check_preemption_summary(job: Mapping[str, Any], where: str) -> None:
    """Every preempted attempt is an attempt of the job, stopped, with its reason."""
    count = preempted(job)
    if not count:
        assert "preemptionSummary" not in job, where
        return
    recent = job["preemptionSummary"]["recentPreemptedAttempts"]
    assert len(recent) == min(count, 5), where
    attempts = {a["serviceResourceId"]["value"]: a for a in job["attempts"]}
    for entry in recent:
        attempt = attempts[entry["serviceResourceId"]["value"]]
        assert entry["stoppedAt"] == attempt["stoppedAt"], where
        assert entry["statusReason"] == attempt["statusReason"], where
    if job["status"] == "RUNNABLE":
        assert job["statusReason"] == recent[0]["statusReason"], where


def check_snapshot(
    snapshot: Mapping[str, Any], jobs: Mapping[str, Mapping[str, Any]], order: list[str], where: str
) -> None:
    """GetJobQueueSnapshot agrees with what DescribeServiceJob says of every job."""
    waiting = sorted(
        (n for n in order if jobs[n]["status"] == "RUNNABLE"),
        key=lambda n: (-jobs[n].get("schedulingPriority", 0), order.index(n)),
    )
    front = [j["jobArn"] for j in snapshot["frontOfQueue"]["jobs"]]
    assert front == [jobs[n]["jobArn"] for n in waiting], where
    heads: dict[str, list[str]] = {}
    for name in waiting:
        heads.setdefault(jobs[name]["quotaShareName"], [jobs[name]["jobArn"]])
    fronts = snapshot["frontOfQuotaShares"]["quotaShares"]
    assert {s: [e["jobArn"] for e in entries] for s, entries in fronts.items()} == heads, where
    total: dict[str, float] = {}
    per_share: dict[str, dict[str, float]] = {}
    for job in jobs.values():
        if job["status"] in ACTIVE_STATUSES:
            for usage in job["capacityUsage"]:
                unit, quantity = usage["capacityUnit"], usage["quantity"]
                total[unit] = total.get(unit, 0) + quantity
                share = per_share.setdefault(job["quotaShareName"], {})
                share[unit] = share.get(unit, 0) + quantity
    utilization = snapshot["queueUtilization"]
    shown_total = {u["capacityUnit"]: u["quantity"] for u in utilization["totalCapacityUsage"]}
    assert shown_total == total, where
    top = utilization["quotaShareUtilization"]["topCapacityUtilization"]
    shown = {
        t["quotaShareName"]: {u["capacityUnit"]: u["quantity"] for u in t["capacityUsage"]}
        for t in top
    }
    assert shown == per_share, where
    sizes = [sum(u["quantity"] for u in t["capacityUsage"]) for t in top]
    assert sizes == sorted(sizes, reverse=True), f"{where}: top utilization first"
