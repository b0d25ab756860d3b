"""`submit --dry-run` says what the emulator's next scheduling pass then does, on random
queues (hypothesis): the same engine decides both, from the live jobs the API reports."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings, strategies as st

from quotactl.aws.live import describe_all, read_queue
from quotactl.aws.session import Target, client, make_session
from quotactl.core.jobs.placement import preview
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE, create_share, payload, wait_for

STRATEGIES = ("RESERVE", "LEND", "LEND_AND_BORROW")
HOLDING = {"SCHEDULED", "STARTING", "RUNNING"}

share_st = st.fixed_dictionaries(
    {
        "limit": st.integers(1, 3),
        "strategy": st.sampled_from(STRATEGIES),
        "borrow": st.sampled_from([0, 50, 100, -1]),
        "preemption": st.sampled_from(["ENABLED", "DISABLED"]),
    }
)
job_st = st.tuples(st.integers(0, 2), st.integers(1, 3), st.integers(0, 3))  # share, count, prio


def _queue(batch: Any, shares: list[dict[str, Any]], spare: int) -> None:
    capacity = sum(s["limit"] for s in shares) + spare
    policy = batch.create_scheduling_policy(
        name="q-quota", quotaSharePolicy={"idleResourceAssignmentStrategy": "FIFO"}
    )
    batch.create_service_environment(
        serviceEnvironmentName="env",
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": TYPE, "maxCapacity": capacity}],
    )
    wait_for(
        lambda: batch.describe_service_environments(serviceEnvironments=["env"])[
            "serviceEnvironments"
        ][0],
        "VALID",
    )
    batch.create_job_queue(
        jobQueueName="q",
        priority=1,
        schedulingPolicyArn=policy["arn"],
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "env"}],
        jobQueueType="SAGEMAKER_TRAINING",
    )
    wait_for(lambda: batch.describe_job_queues(jobQueues=["q"])["jobQueues"][0], "VALID")
    for index, share in enumerate(shares):
        borrow = share["borrow"] if share["strategy"] == "LEND_AND_BORROW" else None
        arn = create_share(
            batch,
            "q",
            f"s{index}",
            limit=share["limit"],
            strategy=share["strategy"],
            borrow=borrow,
            preemption=share["preemption"],
        )
        wait_for(lambda a=arn: batch.describe_quota_share(quotaShareArn=a), "VALID")


def _submit(batch: Any, share: int, count: int, priority: int, name: str) -> str:
    out = batch.submit_service_job(
        jobName=name,
        jobQueue="q",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(TYPE, count, max_runtime=86400),
        quotaShareName=f"s{share}",
        schedulingPriority=priority,
    )
    return str(out["jobId"])


def _state(batch: Any, ids: list[str]) -> dict[str, tuple[str, int, str | None]]:
    found = {}
    for job_id in ids:
        d = batch.describe_service_job(jobId=job_id)
        preempted = (d.get("preemptionSummary") or {}).get("preemptedAttemptCount", 0)
        found[job_id] = (d["status"], preempted, d.get("statusReason"))
    return found


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    shares=st.lists(share_st, min_size=2, max_size=3),
    spare=st.integers(0, 2),
    live=st.lists(job_st, max_size=6),
    candidate=job_st,
)
@example(  # found by hypothesis: an in-share preemption where the share also borrows
    shares=[
        {"limit": 2, "strategy": "LEND_AND_BORROW", "borrow": 50, "preemption": "ENABLED"},
        {"limit": 3, "strategy": "LEND", "borrow": 0, "preemption": "ENABLED"},
    ],
    spare=0,
    live=[(0, 3, 0), (1, 1, 0), (1, 3, 1)],
    candidate=(0, 1, 1),
)
def test_dry_run_agrees_with_the_emulators_next_pass(
    shares: list[dict[str, Any]],
    spare: int,
    live: list[tuple[int, int, int]],
    candidate: tuple[int, int, int],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state.db"
        target = Target(backend="local", state_path=state, timing=TEST_TIMING)
        with Emulator(state, timing=TEST_TIMING) as emulator:
            batch = client(target, session=make_session(target, emulator=emulator))
            _queue(batch, shares, spare)
            ids = []
            for index, (share, count, priority) in enumerate(live):
                ids.append(_submit(batch, share % len(shares), count, priority, f"live-{index}"))
                emulator.advance(1)  # distinct submission times, as on AWS
            emulator.advance(60)
            share, count, priority = candidate
            share %= len(shares)
            queue = read_queue(batch, "q", describe=describe_all)
            placement = preview(
                queue,
                share=f"s{share}",
                instance_type=TYPE,
                count=count,
                priority=priority,
                timing=TEST_TIMING,
            )
            before = _state(batch, ids)
            new = _submit(batch, share, count, priority, "candidate")
            emulator.advance(1)
            after = _state(batch, [*ids, new])
            batch.close()
    status, _, reason = after[new]
    preempted = {j for j in ids if after[j][1] > before[j][1]}
    # its own victims, and those of waiting jobs that start in the same pass once it is in
    assert preempted == {v.job_id for v in (*placement.victims, *placement.knock_on)}, placement
    if placement.placement in ("own", "borrow", "preempt"):
        assert status in HOLDING, placement
    else:
        assert status == "RUNNABLE", placement
        misconfigured = bool(reason and reason.startswith("MISCONFIGURATION"))
        assert misconfigured == (placement.placement == "misconfigured"), placement
        if misconfigured:
            assert reason == placement.status_reason
