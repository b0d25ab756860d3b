"""`submit --dry-run` refuses exactly what `submit` refuses: one path builds and checks the
SubmitServiceJob requests for both, and a name too long is refused, never cut."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import Jobs, all_jobs, batch_client

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


def _raw(
    jobs: Jobs, repo_root: Path, name: str, change: Callable[[dict[str, object]], None]
) -> str:
    payload = json.loads((repo_root / "configs" / "jobs" / "raw-payload.json").read_text())
    change(payload)
    path = jobs.tmp / f"{name}.json"
    path.write_text(json.dumps(payload))
    return str(path)


def _big(payload: dict[str, object]) -> None:
    payload["HyperParameters"] = {f"k{i}": "x" * 200 for i in range(100)}  # about 21 KB


def _huge_count(payload: dict[str, object]) -> None:
    resources = payload["ResourceConfig"]
    assert isinstance(resources, dict)
    resources["InstanceCount"] = 2**31


RAW = {
    "payload-over-10-KiB": (_big, "SubmitServiceJob accepts at most 10240"),
    "instance-count-past-int32": (_huge_count, "InstanceCount: must be at most 2147483647"),
}
FLAGS = {
    "name-aws-refuses": (("--name", "bad name!"), "jobName 'bad name!' is invalid"),
    "tag-aws-reserves": (("--tag", "aws:team=a"), "the aws: prefix is reserved"),
    "name-over-128": (("--name", "n" * 129), "is 129 characters; AWS allows at most 128"),
    "name-over-128-with-count": (
        ("--name", "n" * 127, "--count", "3"),
        "AWS allows at most 128 with --count 3",
    ),
    "retries-past-int32": (
        ("--preemption-retries", str(2**31)),
        "preemptionRetriesBeforeTermination: must be at most 2147483647",
    ),
    "tag-key-over-128": (("--tag", "k" * 129 + "=v"), "must be at most 128 characters"),
}


def _both_refuse(jobs: Jobs, args: tuple[str, ...], message: str) -> None:
    client = batch_client(jobs.tmp / "state.db")
    dry = jobs.run("submit", *args, "--dry-run")
    real = jobs.run("submit", *args)
    assert dry.exit_code == real.exit_code != 0, (dry.stderr, real.stderr)
    assert message in real.stderr
    assert dry.stderr == real.stderr
    assert all_jobs(client) == []


@pytest.mark.parametrize("case", list(RAW))
def test_a_dry_run_refuses_the_raw_payload_submit_refuses(
    jobs: Jobs, repo_root: Path, case: str
) -> None:
    change, message = RAW[case]
    raw = _raw(jobs, repo_root, case, change)
    _both_refuse(jobs, (raw, "--queue", "q", "--share", "a"), message)


@pytest.mark.parametrize("case", list(FLAGS))
def test_a_dry_run_refuses_the_options_submit_refuses(jobs: Jobs, case: str) -> None:
    args, message = FLAGS[case]
    spec = jobs.spec(case, name="checked")  # not a dated name: both runs name the same job
    _both_refuse(jobs, (spec, "--share", "a", *args), message)


def test_a_name_of_exactly_128_characters_is_sent_whole(jobs: Jobs) -> None:
    name = "n" * 126
    jobs.ok("submit", jobs.spec(), "--share", "a", "--name", name, "--count", "2")
    names = sorted(j["jobName"] for j in all_jobs(batch_client(jobs.tmp / "state.db")))
    assert names == [f"{name}-1", f"{name}-2"]
