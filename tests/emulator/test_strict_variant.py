"""The strict emulator: at each choice where AWS is silent, the reading least convenient to a
client; quotactl must work under it. Each test names the lenient reading a client could rely
on, and fails when quotactl does."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from quotactl.aws.live import LiveReader
from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import TYPE, make_queue, payload

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

HOUR = 3600.0


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[tuple[Emulator, Any]]:
    state = tmp_path / "state.db"
    emulator = Emulator(state, timing=TEST_TIMING, variant="strict")
    session = make_session(Target("local", state), emulator=emulator)
    batch = client(Target("local", state), session=session, retries={"total_max_attempts": 1})
    yield emulator, batch
    emulator.close()


def submit(batch: Any, name: str, queue: str = "q", **extra: Any) -> str:
    job_id: str = batch.submit_service_job(
        jobName=name,
        jobQueue=queue,
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(),
        **extra,
    )["jobId"]
    return job_id


def test_the_variant_is_stored_in_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    Emulator(state, variant="strict").close()
    with Emulator(state) as again:  # another process, naming no variant: the file's
        assert again.variant == "strict"
    with Emulator(state, variant="default") as changed:
        assert changed.variant == "default"


def test_time_comes_from_the_date_header_not_the_data(strict: tuple[Emulator, Any]) -> None:
    """Lenient: an emulated-clock header (or a recent ``lastUpdatedAt``) to read "now" from.
    Tried: reading the time from ``lastUpdatedAt`` (the old fallback): 6 hours wrong."""
    emulator, batch = strict
    make_queue(batch, "q", shares={"a": {"limit": 1}})
    emulator.advance(6 * HOUR)  # nothing changes for six hours
    answer = batch.get_job_queue_snapshot(jobQueue="q")
    headers = answer["ResponseMetadata"]["HTTPHeaders"]
    assert "x-quotactl-emulated-time" not in headers
    assert answer["queueUtilization"]["lastUpdatedAt"] / 1000 < emulator.now() - 5 * HOUR
    queue = LiveReader(batch).read_queue("q")
    assert abs(queue.read_at - emulator.now()) <= 1.0  # Date has whole seconds


def test_list_quota_shares_items_carry_no_tags(strict: tuple[Emulator, Any]) -> None:
    """Lenient: ListQuotaShares' items with their tags (the API reference's example). Tried:
    taking a share's team from the listed item only: the team is lost."""
    _, batch = strict
    arns = make_queue(batch, "q", shares={"a": {"limit": 1}})
    batch.tag_resource(resourceArn=arns["a"], tags={"quotactl:team": "vision"})
    listed = batch.list_quota_shares(jobQueue="q")
    raw = json.loads(listed["ResponseMetadata"].get("RawBody", "{}") or "{}")
    assert all("tags" not in item for item in raw.get("quotaShares", []))
    queue = LiveReader(batch).read_queue("q")
    assert [(s.name, s.team) for s in queue.shares] == [("a", "vision")]


def test_a_repeated_client_token_is_rejected(strict: tuple[Emulator, Any]) -> None:
    """Lenient: the repeat answered with the first job. Strict follows the model's text."""
    _, batch = strict
    make_queue(batch, "q", shares={"a": {"limit": 1}})
    submit(batch, "one", quotaShareName="a", clientToken="t-1")
    with pytest.raises(ClientError, match="already used"):
        submit(batch, "one", quotaShareName="a", clientToken="t-1")
    for _ in range(3):  # past the listing lag
        jobs = batch.list_service_jobs(jobQueue="q", jobStatus="RUNNABLE")["jobSummaryList"]
        jobs += batch.list_service_jobs(jobQueue="q", jobStatus="RUNNING")["jobSummaryList"]
    assert [j["jobName"] for j in jobs] == ["one"]  # no second job either way


def test_listings_lag_creations_by_a_fixed_number_of_reads(tmp_path: Path) -> None:
    """Lenient: a created queue listed by the very next read. Tried: reading a queue right
    after its create (as `apply` did): it is not there yet."""
    state = tmp_path / "state.db"
    emulator = Emulator(state, timing=TEST_TIMING, variant="strict")
    target = Target("local", state)
    batch = client(target, session=make_session(target, emulator=emulator))
    policy = batch.create_scheduling_policy(
        name="p", quotaSharePolicy={"idleResourceAssignmentStrategy": "FIFO"}
    )["arn"]
    seen = [bool(batch.describe_scheduling_policies(arns=[policy])["schedulingPolicies"])]
    emulator.close()
    # the count is in the state file: another process goes on where this one stopped
    with Emulator(state, timing=TEST_TIMING) as other:
        again = client(target, session=make_session(target, emulator=other))
        for _ in range(3):
            found = again.describe_scheduling_policies(arns=[policy])["schedulingPolicies"]
            seen.append(bool(found))
    assert seen == [False, False, True, True]


def test_submit_is_limited_to_five_a_second(tmp_path: Path) -> None:
    """Lenient: no limit. Tried: six submits in a second without waiting: the sixth fails."""
    state = tmp_path / "state.db"
    # the wall clock stands still: the six submits are in one second however slow the machine
    emulator = Emulator(state, timing=TEST_TIMING, variant="strict", wall=lambda: 1.8e9)
    target = Target("local", state)
    session = make_session(target, emulator=emulator)
    batch = client(target, session=session, retries={"total_max_attempts": 1})
    make_queue(batch, "q", shares={"a": {"limit": 1}})
    for i in range(5):
        submit(batch, f"j{i}", quotaShareName="a")
    with pytest.raises(ClientError) as caught:
        submit(batch, "j5", quotaShareName="a")
    assert caught.value.response["Error"]["Code"] == "TooManyRequestsException"
    emulator.close()


def test_no_started_at_before_the_current_attempt_starts(strict: tuple[Emulator, Any]) -> None:
    """Lenient: a preempted job back in RUNNABLE keeps its last attempt's ``startedAt``.
    Tried: taking a listed job's ``startedAt`` as proof it runs: a waiting job looks started."""
    emulator, batch = strict
    make_queue(batch, "q", capacity={TYPE: 1}, shares={"a": {"limit": 1, "preemption": "ENABLED"}})
    low = submit(batch, "low", quotaShareName="a", schedulingPriority=1)
    emulator.advance(60)
    assert "startedAt" in batch.describe_service_job(jobId=low)
    submit(batch, "high", quotaShareName="a", schedulingPriority=9)
    emulator.advance(60)
    found = batch.describe_service_job(jobId=low)
    assert found["status"] == "RUNNABLE"
    assert "startedAt" not in found
    assert found["attempts"][0]["startedAt"]  # the attempt keeps its own


def test_status_and_jobs_work_on_a_strict_account(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUOTACTL_STATE", str(tmp_path / "state.db"))
    assert cli("local", "reset", "--variant", "strict").exit_code == 0
    with Emulator(tmp_path / "state.db", timing=TEST_TIMING) as emulator:
        assert emulator.variant == "strict"
        target = Target("local", tmp_path / "state.db")
        batch = client(target, session=make_session(target, emulator=emulator))
        make_queue(batch, "q", shares={"a": {"limit": 1}})
        submit(batch, "one", quotaShareName="a")
        emulator.advance(6 * HOUR)
    status = cli("status", "--queue", "q", "-o", "json")
    assert status.exit_code == 0, status.stderr
    jobs = cli("jobs", "-o", "json")
    assert jobs.exit_code == 0, jobs.stderr
    assert [j["name"] for j in json.loads(jobs.stdout)["jobs"]] == ["one"]
