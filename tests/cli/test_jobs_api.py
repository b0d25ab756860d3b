"""``quotactl.aws.jobs`` against the emulator: SubmitServiceJob paced to 5 a second (on an
injected clock, no sleeping), a resent submit is one job, TerminateServiceJobs 50 at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.jobs import JobsApi, Pacer
from quotactl.aws.session import Target, client, make_session
from quotactl.cli.app import run
from quotactl.config.jobspec import load_job_spec
from quotactl.core.jobs.spec import SubmitOptions, requests
from tests.cli.jobs_support import CONFIG, all_jobs
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


class FakeClock:
    """Time that moves only when the pacer sleeps (and a little per call)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def batch(tmp_path: Path) -> Iterator[Any]:
    (tmp_path / "config.yaml").write_text(CONFIG)
    state = tmp_path / "state.db"
    assert (
        run(["-q", "--state", str(state), "apply", str(tmp_path / "config.yaml"), "--auto-approve"])
        == 0
    )
    target = Target(backend="local", state_path=state, timing=TEST_TIMING)
    batch_client = client(target, session=make_session(target))
    yield batch_client
    batch_client.close()


def _requests(tmp_path: Path, count: int) -> list[Any]:
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(
        "image: img\ninstance_type: ml.g5.xlarge\nrole_arn: arn:aws:iam::123456789012:role/R\n"
        "output_s3: s3://bucket/out\nqueue: q\nshare: b\n"
    )
    spec = load_job_spec(spec_file)
    tokens = iter(f"token-{i}" for i in range(count))
    return requests(spec, SubmitOptions(count=count), now=0.0, token=lambda: next(tokens))


def test_submit_count_never_sends_more_than_five_a_second(batch: Any, tmp_path: Path) -> None:
    clock = FakeClock()
    sent: list[float] = []

    def record(**_: Any) -> None:
        sent.append(clock.now)
        clock.now += 0.01  # each call takes 10 ms of (fake) time

    batch.meta.events.register("before-call.batch.SubmitServiceJob", record)
    api = JobsApi(batch, pacer=Pacer(clock=clock, sleep=clock.sleep))
    submitted = api.submit(_requests(tmp_path, 23))
    assert len(submitted) == 23
    assert len(sent) == 23
    for index in range(len(sent) - 5):
        assert sent[index + 5] - sent[index] >= 1.0  # any 6 calls span at least a second
    assert len(clock.slept) == 4  # 23 calls: bursts of 5, four waits between them
    assert sent[-1] - sent[0] < 4.2  # and no slower than it has to be


def test_a_resent_submit_is_the_same_job(batch: Any, tmp_path: Path) -> None:
    """botocore resends a request whose answer was lost: the client token makes it one job."""
    seen: list[int] = []

    def lose_first_answer(attempts: int = 0, **_: Any) -> float | None:
        seen.append(attempts)
        return 0.001 if attempts == 1 else None  # retry once, after the job exists

    batch.meta.events.register("needs-retry.batch.SubmitServiceJob", lose_first_answer)
    (request,) = _requests(tmp_path, 1)
    (job,) = JobsApi(batch).submit([request])
    assert seen == [1, 2]  # the request really went out twice
    assert [j["jobId"] for j in all_jobs(batch)] == [job.job_id]


def test_cancel_sends_terminate_service_jobs_fifty_at_a_time(batch: Any, tmp_path: Path) -> None:
    api = JobsApi(batch, pacer=Pacer(rate=10_000))
    ids = [s.job_id for s in api.submit(_requests(tmp_path, 120))]
    assert api.terminate(ids, "done") == []
    assert api.calls["TerminateServiceJobs"] == 3
    statuses = {j["status"] for j in all_jobs(batch)}
    assert statuses == {"FAILED"}
