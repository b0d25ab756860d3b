"""The ``jobs`` listing on the emulator: newest first across queues, statuses and shares (ties
by name number, then ID), the first job handed on before the last page is read, no
DescribeServiceJob unless wide, wide describes paced and in order, --since reading few pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, strategies as st

import quotactl
from quotactl.aws.job_listing import DESCRIBE_PER_SECOND, JobListing, newest_first
from quotactl.aws.jobs import Pacer
from quotactl.aws.responses import capacity_usage, job_status, live_job, seconds
from quotactl.core.resources.observed import LiveJob
from quotactl.core.states import LISTED, JobStatus
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import inprocess_client, make_queue, submit_request

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from quotactl.aws.account import Account

SHARES = {name: {"limit": 2} for name in ("a", "b", "c")}


def seed(state: Path, queues: dict[str, int], *, advance: float = 60.0) -> None:
    """Each queue with shares a, b, c (2 instances each), ``n`` jobs spread over them, some
    running after ``advance`` seconds, one of them cancelled; the jobs of one queue are
    submitted in a few instants, so many share a createdAt."""
    emulator, batch = inprocess_client(state)
    try:
        for queue, n in queues.items():
            make_queue(batch, queue, capacity={"ml.g5.xlarge": 6}, shares=SHARES)
            for i in range(n):
                request = submit_request(f"job-{i}", queue, "abc"[i % 3])
                emulator.call("SubmitServiceJob", request)
                if i % 40 == 39:
                    emulator.advance(1.0)
        emulator.advance(advance)
        first = batch.list_service_jobs(jobQueue=next(iter(queues)), jobStatus="RUNNING")
        job_id = first["jobSummaryList"][0]["jobId"]
        batch.terminate_service_job(jobId=job_id, reason="test")
        emulator.advance(1.0)
    finally:
        batch.close()
        emulator.close()


def every_job(state: Path) -> list[LiveJob]:
    """Every job of every queue and status, by the AWS SDK's own paginators, in the order
    the listing promises."""
    emulator, batch = inprocess_client(state)
    try:
        pages = batch.get_paginator("list_service_jobs")
        found: dict[str, LiveJob] = {}
        for queue in (q["jobQueueName"] for q in batch.describe_job_queues()["jobQueues"]):
            for status in LISTED:
                for page in pages.paginate(jobQueue=queue, jobStatus=str(status)):
                    for item in page["jobSummaryList"]:
                        found.setdefault(item["jobId"], live_job(item, queue))
        return sorted(found.values(), key=newest_first)
    finally:
        batch.close()
        emulator.close()


def half(jobs: list[LiveJob], now: float) -> float:
    """A --since window that holds about the newer half of ``jobs``."""
    created = sorted(j.created_at or 0.0 for j in jobs)
    return now - created[len(created) // 2] + 0.0005


@pytest.fixture
def account(tmp_path: Path) -> Iterator[Account]:
    state = tmp_path / "state.db"
    seed(state, {"q1": 250, "q2": 130})
    with quotactl.connect("local", state=state) as connected:
        yield connected


def test_the_listing_is_every_job_newest_first_read_without_describing(
    account: Account, tmp_path: Path
) -> None:
    listed = list(quotactl.api.stream_jobs(account))
    expected = every_job(tmp_path / "state.db")
    assert [j.job_id for j in listed] == [j.job_id for j in expected]
    assert len(listed) == 380
    assert {j.status.value for j in listed} >= {"RUNNING", "RUNNABLE", "FAILED"}
    assert account.calls["DescribeServiceJob"] == 0
    assert all(j.priority is None and not j.detailed for j in listed)


@pytest.fixture
def long_queue(tmp_path: Path) -> Path:
    """One share of 450 jobs submitted a second apart: five pages of RUNNABLE jobs."""
    state = tmp_path / "long.db"
    emulator, batch = inprocess_client(state)
    make_queue(batch, "long", shares={"a": {}})
    for i in range(450):
        emulator.call("SubmitServiceJob", submit_request(f"job-{i}", "long", "a"))
        emulator.advance(1.0)
    batch.close()
    emulator.close()
    return state


def test_the_first_job_comes_before_the_last_page(long_queue: Path) -> None:
    """The five pages come one after another (each taking 20 ms): the first job is handed on
    when the first pages are in. (Jobs created in the same millisecond are handed on
    together, once their order by name is known.)"""
    with quotactl.connect("local", state=long_queue, faults="latency_ms=20") as slow:
        listing = iter(quotactl.api.stream_jobs(slow, statuses=[JobStatus.RUNNABLE]))
        first = next(listing)
        before = slow.calls["ListServiceJobs"]
        rest = list(listing)
        assert first.name == "job-449"
        assert len(rest) > 400
        assert slow.calls["ListServiceJobs"] >= before + 3


def test_since_stops_reading_at_the_window(long_queue: Path) -> None:
    with quotactl.connect("local", state=long_queue) as account:
        listing = quotactl.api.stream_jobs(account, statuses=[JobStatus.RUNNABLE])
        everything = list(listing)
        assert account.calls["ListServiceJobs"] == 5
        recent = list(quotactl.api.stream_jobs(account, statuses=[JobStatus.RUNNABLE], since=50.5))
        assert [j.name for j in recent] == [f"job-{i}" for i in range(449, 399, -1)]
        assert [j.job_id for j in recent] == [j.job_id for j in everything[:50]]
        assert account.calls["ListServiceJobs"] == 5 + 1


def test_filters_match_the_full_listing(account: Account, tmp_path: Path) -> None:
    everything = every_job(tmp_path / "state.db")
    now = quotactl.api.list_jobs(account, wide=False).now
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"share": "b"}, lambda j: j.share == "b"),
        ({"queues": ["q2"]}, lambda j: j.queue == "q2"),
        ({"statuses": [JobStatus.RUNNABLE]}, lambda j: j.status.value == "RUNNABLE"),
        ({"since": half(everything, now)}, lambda j: j.created_at >= now - half(everything, now)),
    ]
    for options, keep in cases:
        queues = options.pop("queues", None)
        listed = quotactl.api.list_jobs(account, queues, wide=False, **options).jobs
        assert [j.job_id for j in listed] == [j.job_id for j in everything if keep(j)], options


def test_wide_describes_every_job_in_order_paced(account: Account) -> None:
    plain = list(quotactl.api.stream_jobs(account, ["q2"]))
    slept: list[float] = []
    clock = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    pacer = Pacer(DESCRIBE_PER_SECOND, clock=lambda: clock[0], sleep=sleep)
    statuses = list(JobStatus)
    wide = list(JobListing(account.batch, ["q2"], statuses, wide=True, pacer=pacer))
    assert [j.job_id for j in wide] == [j.job_id for j in plain]
    assert all(j.detailed and j.preemptions is not None for j in wide)
    assert account.calls["DescribeServiceJob"] == 130
    # 130 calls at 25 a second: the first 25 at once, the rest over (130 - 25) / 25 seconds
    assert sum(slept) == pytest.approx((130 - DESCRIBE_PER_SECOND) / DESCRIBE_PER_SECOND, abs=1)


def test_an_empty_account_lists_nothing(tmp_path: Path) -> None:
    Emulator(tmp_path / "state.db", timing=TEST_TIMING).close()
    with quotactl.connect("local", state=tmp_path / "state.db") as connected:
        assert list(quotactl.api.stream_jobs(connected)) == []


SUMMARY = st.fixed_dictionaries(
    {"jobId": st.uuids().map(str)},
    optional={
        "jobName": st.text(max_size=8),
        "jobArn": st.text(max_size=8),
        "quotaShareName": st.text(max_size=8),
        "status": st.sampled_from([*(str(s) for s in JobStatus), "PENDING"]),
        "statusReason": st.text(max_size=8),
        "capacityUsage": st.lists(
            st.fixed_dictionaries(
                {"capacityUnit": st.sampled_from(["ml.p5.48xlarge", "ml.g5.xlarge"])},
                optional={"quantity": st.floats(0, 64)},
            ),
            max_size=3,
        ),
        "createdAt": st.integers(0, 2**42),
        "startedAt": st.integers(0, 2**42),
        "scheduledAt": st.integers(0, 2**42),
        "stoppedAt": st.integers(0, 2**42),
        "isTerminated": st.booleans(),
    },
)


@given(SUMMARY)
def test_a_listed_job_is_built_as_the_dataclass_builds_it(summary: dict[str, Any]) -> None:
    built = live_job(summary, "q")
    expected = LiveJob(
        job_id=summary["jobId"],
        name=summary.get("jobName") or "",
        queue="q",
        share=summary.get("quotaShareName"),
        status=job_status(summary.get("status")),
        instances=capacity_usage(summary.get("capacityUsage")),
        started_at=seconds(summary.get("startedAt")),
        created_at=seconds(summary.get("createdAt")),
        job_arn=summary.get("jobArn") or "",
        status_reason=summary.get("statusReason"),
        scheduled_at=seconds(summary.get("scheduledAt")),
        stopped_at=seconds(summary.get("stoppedAt")),
        is_terminated=bool(summary.get("isTerminated")),
    )
    assert built == expected
    assert vars(built) == vars(expected)
