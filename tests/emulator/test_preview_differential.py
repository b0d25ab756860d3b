"""Differential test: every preview names what the emulator then does, ties included.

Hypothesis draws a queue (shares, strategies, borrow limits, in-share preemption, spare
capacity), a mix of live jobs submitted either a second apart or all in the same millisecond
(so they tie on ``createdAt``, ``scheduledAt`` and often priority), and one change: a new job,
a priority change, or a lowered share limit followed by a new job. The predictions are made
from what real boto3 reads of the emulated account (ListServiceJobs, DescribeServiceJob,
GetJobQueueSnapshot), by the functions behind ``submit --dry-run`` (``placement.preview``),
``job priority`` (``reprioritise.consequences``) and the plan's runtime impact, which the
disruption guard counts (``impact.assess``). Then the change is made through boto3, the
clock moves on, and DescribeServiceJob says what happened: the victims, starts and waits must
be the predicted ones.

Half the scenarios run with a 20 s preemption window (the emulator and the previews both told
by ``QUOTACTL_EMULATOR_TIMING``): then the named victims are the jobs RUNNING with statusReason
``PREEMPTION_IN_PROGRESS: ...`` a second after the change, and they are preempted, and the
job that preempts them starts, at the window's end: when the preview says it starts.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.aws.backend import AwsBackend
from quotactl.aws.live import describe_all, read_queue
from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import Timing
from quotactl.core.jobs.placement import preview
from quotactl.core.jobs.reprioritise import consequences
from quotactl.core.plan.impact import assess
from quotactl.core.plan.model import Action, Effect
from quotactl.core.resources.desired import ShareSpec
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE
from tests.emulator.test_dry_run_agreement import HOLDING, _queue, _state, _submit, share_st

SCENARIOS = 45
"""Examples per run: about 40 s of CI time on two cores."""

job_st = st.tuples(st.integers(0, 2), st.integers(1, 2), st.sampled_from([0, 0, 1, 3]))
change_st = st.one_of(
    st.tuples(st.just("submit"), job_st),
    st.tuples(st.just("priority"), st.tuples(st.integers(0, 20), st.integers(0, 5))),
    st.tuples(st.just("limit"), st.tuples(st.integers(0, 2), st.integers(1, 2), job_st)),
)


WINDOW = 20
WINDOWED = Timing(0.0, 0.0, True, float(WINDOW), 0.0)
WINDOWED_SETTING = f"scheduled=0,starting=0,preemption={WINDOW},termination=0"


def _preempted(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    return {j for j in before if after[j][1] > before[j][1]}


def _leaving(now: dict[str, Any]) -> set[str]:
    """The jobs in their preemption window: still holding, statusReason PREEMPTION_IN_PROGRESS."""
    return {
        j
        for j, (status, _, reason) in now.items()
        if status in HOLDING and (reason or "").startswith("PREEMPTION_IN_PROGRESS: ")
    }


class _Windows:
    """The scenario's timing, which the emulator and the previews are both given."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.timing = WINDOWED if on else TEST_TIMING

    def __enter__(self) -> _Windows:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _settle(emulator: Emulator, batch: Any, ids: list[str], windows: _Windows) -> set[str]:
    """Move the clock past the change (and its preemption window); the jobs in the window a
    second after the change."""
    emulator.advance(1)
    if not windows.on:
        return set()
    leaving = _leaving(_state(batch, ids))
    emulator.advance(WINDOW)
    return leaving


@settings(max_examples=SCENARIOS, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shares=st.lists(share_st, min_size=2, max_size=3),
    spare=st.integers(0, 1),
    live=st.lists(job_st, min_size=1, max_size=7),
    tied=st.booleans(),
    change=change_st,
    windowed=st.booleans(),
)
def test_every_preview_is_what_the_emulator_then_does(
    shares: list[dict[str, Any]],
    spare: int,
    live: list[tuple[int, int, int]],
    tied: bool,
    change: tuple[str, Any],
    windowed: bool,
) -> None:
    with tempfile.TemporaryDirectory() as tmp, _Windows(windowed) as windows:
        state = Path(tmp) / "state.db"
        target = Target(backend="local", state_path=state, timing=TEST_TIMING)
        with Emulator(state, timing=windows.timing) as emulator:
            batch = client(target, session=make_session(target, emulator=emulator))
            _queue(batch, shares, spare)
            ids = []
            for index, (share, count, priority) in enumerate(live):
                ids.append(_submit(batch, share % len(shares), count, priority, f"live-{index}"))
                if not tied:
                    emulator.advance(1)
            emulator.advance(60)
            kind, what = change
            if kind == "priority":
                index, priority = what
                job_id = ids[index % len(ids)]
                queue = read_queue(batch, "q", describe=describe_all)
                subject = queue.job(job_id)
                assert subject is not None
                predicted = consequences(queue, subject, priority, timing=windows.timing)
                before = _state(batch, ids)
                batch.update_service_job(jobId=job_id, schedulingPriority=priority)
                leaving = _settle(emulator, batch, ids, windows)
                after = _state(batch, ids)
                named = {v.job_id for v in predicted.preempts}
                assert _preempted(before, after) == named
                if windows.on:
                    assert leaving == named
                if predicted.starts:
                    assert after[job_id][0] in HOLDING
                batch.close()
                return
            impact: set[str] | None = None
            lowered = ""
            if kind == "limit":
                index, less, what = what
                lowered = f"s{index % len(shares)}"
                old = shares[index % len(shares)]["limit"]
                limit = max(1, old - less)
                jobs = AwsBackend(batch).live_jobs(["q"])
                found = assess(
                    Action.UPDATE,
                    ShareSpec("q", lowered, {TYPE: old}),
                    ShareSpec("q", lowered, {TYPE: limit}),
                    jobs,
                )
                impact = {j.job_id for i in found if i.effect is Effect.PREEMPTIBLE for j in i.jobs}
                arn = next(
                    s["quotaShareArn"]
                    for s in batch.list_quota_shares(jobQueue="q")["quotaShares"]
                    if s["quotaShareName"] == lowered
                )
                batch.update_quota_share(
                    quotaShareArn=arn, capacityLimits=[{"capacityUnit": TYPE, "maxCapacity": limit}]
                )
                _settle(emulator, batch, ids, windows)  # its reclaims, windows and all
            share, count, priority = what
            share %= len(shares)
            queue = read_queue(batch, "q", describe=describe_all)
            placement = preview(
                queue,
                share=f"s{share}",
                instance_type=TYPE,
                count=count,
                priority=priority,
                timing=windows.timing,
            )
            before = _state(batch, ids)
            new = _submit(batch, share, count, priority, "candidate")
            leaving = _settle(emulator, batch, [*ids, new], windows)
            after = _state(batch, [*ids, new])
            scheduled = batch.describe_service_job(jobId=new).get("scheduledAt")
            batch.close()
    preempted = _preempted(before, after)
    assert preempted == {v.job_id for v in placement.victims}, placement
    if windows.on:
        assert leaving == preempted, placement
    status = after[new][0]
    if placement.placement in ("own", "borrow", "preempt"):
        assert status in HOLDING, placement
        # it starts when the preview says: at once, or when its victims' window ends
        assert placement.starts_in == (WINDOW if windows.on and placement.victims else 0)
        assert scheduled == round((queue.read_at + (placement.starts_in or 0)) * 1000)
    else:
        assert status == "RUNNABLE", placement
    if impact is not None:
        # the lowered share's excess goes first: its reclaimed jobs are among those named
        reclaimed = {
            v.job_id for v in placement.victims if v.share == lowered and v.kind == "reclaim"
        }
        assert reclaimed <= impact, (reclaimed, impact)
