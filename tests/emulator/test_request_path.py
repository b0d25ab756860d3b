"""The request path: reads take no write lock, a request costs what it touches, several
emulators on one state file see each other's writes, and an older state file is upgraded."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.emulator import Emulator
from quotactl.emulator.account.service_job import ServiceJob
from quotactl.emulator.store.database import SCHEMA_VERSION
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import make_queue, payload, submit_request

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.emulator.conftest import Account


def submit(emulator: Emulator, name: str, share: str = "a") -> str:
    return str(emulator.call("SubmitServiceJob", submit_request(name, share=share))["jobId"])


def status(emulator: Emulator, job_id: str) -> str:
    return str(emulator.call("DescribeServiceJob", {"jobId": job_id})["status"])


def settle(emulator: Emulator, job_id: str) -> str:
    for _ in range(4):
        seen = status(emulator, job_id)
    return seen


def test_reads_answer_while_another_process_holds_the_write_lock(inproc: Account) -> None:
    client = inproc.client
    make_queue(client, "q", shares={"a": {}})
    job = client.submit_service_job(
        jobName="j",
        jobQueue="q",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=payload(),
        quotaShareName="a",
    )
    for _ in range(4):
        client.describe_service_job(jobId=job["jobId"])
    writer = sqlite3.connect(inproc.state, timeout=0)
    writer.execute("BEGIN IMMEDIATE")  # as a `local serve` in the middle of a write would
    try:
        described = client.describe_service_job(jobId=job["jobId"])
        shares = client.list_quota_shares(jobQueue="q")["quotaShares"]
        listed = client.list_service_jobs(jobQueue="q")["jobSummaryList"]
    finally:
        writer.rollback()
        writer.close()
    assert described["status"] == "RUNNING"
    assert [s["quotaShareName"] for s in shares] == ["a"]
    assert [j["jobId"] for j in listed] == [job["jobId"]]


@pytest.fixture
def emulator(inproc: Account) -> Iterator[Emulator]:
    make_queue(inproc.client, "q", shares={"a": {"limit": 1}})
    with Emulator(inproc.state, timing=TEST_TIMING) as emulator:
        yield emulator


def rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the job rows the emulator reads (each is one ``ServiceJob.from_doc``)."""
    count = [0]
    original = ServiceJob.from_doc.__func__  # type: ignore[attr-defined]

    def counted(cls: type[ServiceJob], doc: dict[str, Any], seq: int) -> ServiceJob:
        count[0] += 1
        result: ServiceJob = original(cls, doc, seq)
        return result

    monkeypatch.setattr(ServiceJob, "from_doc", classmethod(counted))
    return count


def test_a_submit_reads_the_same_job_rows_however_many_jobs_wait(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = submit(emulator, "first")
    count = rows_read(monkeypatch)
    seen: list[int] = []
    for queued in (10, 200):
        for i in range(queued - (10 if seen else 0)):
            submit(emulator, f"queued-{queued}-{i}")
        assert settle(emulator, first) == "RUNNING"
        count[0] = 0
        job = submit(emulator, f"probe-{queued}")
        assert status(emulator, job) == "SUBMITTED"  # this read sees it, then it steps
        assert status(emulator, job) == "RUNNABLE"
        seen.append(count[0])
    assert seen[0] == seen[1] <= 6


def one_running_one_waiting(emulator: Emulator) -> tuple[str, str]:
    """Two jobs on a share of one instance: the first runs, the second waits."""
    running, waiting = submit(emulator, "running"), submit(emulator, "waiting")
    assert settle(emulator, running) == "RUNNING"
    return running, waiting


def test_two_emulators_on_one_state_file_see_each_others_writes(
    emulator: Emulator, inproc: Account
) -> None:
    running, waiting = one_running_one_waiting(emulator)
    with Emulator(
        inproc.state, timing=TEST_TIMING
    ) as other:  # another process, as far as the state file goes
        other.call("TerminateServiceJob", {"jobId": running, "reason": "done"})
        assert settle(other, waiting) == "RUNNING"
    third = submit(emulator, "third")  # this engine must know the share's instance is taken
    assert settle(emulator, third) == "RUNNABLE"
    assert status(emulator, running) == "FAILED"


# What a state file of schema 1 held (the tables and indexes of the first quotactl).
VERSION_1 = """
CREATE TABLE account_1 AS SELECT id, account_id, region, clock, anchor, speed, next_due
    FROM account;
DROP TABLE account;
ALTER TABLE account_1 RENAME TO account;
CREATE TABLE resources_1 AS SELECT seq, kind, parent, name, arn, doc FROM resources;
DROP TABLE resources;
ALTER TABLE resources_1 RENAME TO resources;
CREATE TABLE jobs_1 AS SELECT seq, job_id, queue_ref, share, status, client_token, doc FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_1 RENAME TO jobs;
CREATE UNIQUE INDEX resources_by_name ON resources (kind, parent, name);
CREATE INDEX jobs_by_queue ON jobs (queue_ref, status, seq);
CREATE INDEX jobs_by_status ON jobs (status, seq);
CREATE INDEX jobs_by_token ON jobs (client_token) WHERE client_token IS NOT NULL;
PRAGMA user_version = 1
"""


def test_a_state_file_of_schema_1_is_upgraded_and_its_jobs_go_on(
    emulator: Emulator, inproc: Account
) -> None:
    running, waiting = one_running_one_waiting(emulator)
    emulator.close()
    db = sqlite3.connect(inproc.state)
    db.executescript(VERSION_1)
    db.close()
    with Emulator(inproc.state, timing=TEST_TIMING) as upgraded:
        assert status(upgraded, running) == "RUNNING"
        upgraded.advance(300)  # the payload's MaxRuntimeInSeconds
        assert settle(upgraded, waiting) == "RUNNING"
        assert status(upgraded, running) == "SUCCEEDED"
    db = sqlite3.connect(inproc.state)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_a_state_file_of_schema_2_lists_its_jobs_as_before(
    emulator: Emulator, inproc: Account
) -> None:
    one_running_one_waiting(emulator)
    listed = {
        status: emulator.call("ListServiceJobs", {"jobQueue": "q", "jobStatus": status})
        for status in ("RUNNING", "RUNNABLE")
    }
    emulator.close()
    db = sqlite3.connect(inproc.state)
    db.executescript(
        "DROP INDEX jobs_by_share; ALTER TABLE jobs DROP COLUMN summary;"
        " ALTER TABLE account DROP COLUMN variant; ALTER TABLE account DROP COLUMN list_lag;"
        " ALTER TABLE account DROP COLUMN lagging; PRAGMA user_version = 2"
    )
    db.close()
    with Emulator(inproc.state, timing=TEST_TIMING) as upgraded:
        for status, before in listed.items():
            assert upgraded.call("ListServiceJobs", {"jobQueue": "q", "jobStatus": status}) == (
                before
            )
        by_share = {"name": "QUOTA_SHARE_NAME", "values": ["a"]}
        again = upgraded.call("ListServiceJobs", {"jobQueue": "q", "filters": [by_share]})
        assert len(again["jobSummaryList"]) == 2
    db = sqlite3.connect(inproc.state)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        assert "jobs_by_share" in indexes
    finally:
        db.close()


def test_a_time_limit_set_later_terminates_a_job_already_stuck(emulator: Emulator) -> None:
    params = {**submit_request("big"), "serviceRequestPayload": payload(count=2)}
    big = str(emulator.call("SubmitServiceJob", params)["jobId"])
    assert settle(emulator, big) == "RUNNABLE"  # two instances on a share of one
    reason = "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"
    action = {"reason": reason, "state": "RUNNABLE", "maxTimeSeconds": 600, "action": "TERMINATE"}
    emulator.call("UpdateJobQueue", {"jobQueue": "q", "jobStateTimeLimitActions": [action]})
    emulator.advance(601)
    described = emulator.call("DescribeServiceJob", {"jobId": big})
    assert (described["status"], described["isTerminated"]) == ("FAILED", True)
    assert described["statusReason"].endswith(reason)
