"""A ``submit --count`` that stops part-way lists every job it submitted (text and JSON), and
its hint submits the rest under the names they would have had: no name twice."""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, strategies as st

from quotactl.core.jobs.spec import SubmitOptions, requests, resume_options
from tests.cli.jobs_support import Jobs, all_jobs, batch_client

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from quotactl.core.jobs.spec import JobSpec
    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    # One SubmitServiceJob a second and no retries: the second of a --count fails at once.
    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", "submit_tps=1")
    account.global_args += ["--max-attempts", "1"]
    return account


def _hint_options(stderr: str) -> list[str]:
    found = re.search(r"run the same submit with (.+)$", stderr, re.MULTILINE)
    assert found, stderr
    return shlex.split(found.group(1))


def test_a_partial_submit_lists_its_jobs_and_its_hint_makes_no_duplicate(
    jobs: Jobs, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = jobs.spec()
    result = jobs.run("submit", spec, "--share", "a", "--count", "4")
    assert result.exit_code == 1
    assert "error[submit-incomplete]" in result.stderr
    client = batch_client(jobs.tmp / "state.db")
    (first,) = all_jobs(client)
    assert f"submitted {first['jobName']} ({first['jobId']}) to q/a" in result.stderr
    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")
    jobs.ok("submit", spec, "--share", "a", *_hint_options(result.stderr))
    names = sorted(j["jobName"] for j in all_jobs(client))
    assert names == [f"{first['jobName'][:-2]}-{i}" for i in range(1, 5)]


def test_a_partial_submit_lists_its_jobs_in_the_json_error_document(jobs: Jobs) -> None:
    result = jobs.run(
        "submit", jobs.spec(), "--share", "a", "--count", "3", "--name", "n", "-o", "json"
    )
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["error"]["code"] == "submit-incomplete"
    (job,) = all_jobs(batch_client(jobs.tmp / "state.db"))
    assert [(j["job_id"], j["name"]) for j in document["submitted"]] == [(job["jobId"], "n-1")]
    assert "--name n --count 2 --start-index 2" in document["error"]["hint"]


SPEC: list[JobSpec] = []


def _spec(tmp: Path) -> JobSpec:
    from quotactl.config.jobspec import load_job_spec
    from tests.cli.jobs_support import SPEC as TEXT

    if not SPEC:
        path = tmp / "spec.yaml"
        path.write_text(TEXT + "instance_count: 1\nshare: a\n")
        SPEC.append(load_job_spec(path))
    return SPEC[0]


@given(
    count=st.integers(1, 40),
    start=st.integers(1, 500),
    name=st.one_of(st.none(), st.from_regex(r"[a-z][a-z0-9-]{0,70}", fullmatch=True)),
    data=st.data(),
)
def test_resuming_a_partial_submit_gives_exactly_the_names_left(
    tmp_path_factory: pytest.TempPathFactory,
    count: int,
    start: int,
    name: str | None,
    data: st.DataObject,
) -> None:
    spec = _spec(tmp_path_factory.mktemp("spec"))
    options = SubmitOptions(name=name, count=count, start_index=start)
    planned = requests(spec, options, now=0.0, token=lambda: "t")
    sent = data.draw(st.integers(0, count - 1))
    resumed = _options(resume_options(planned[sent:]))
    again = requests(spec, resumed, now=86_400.0, token=lambda: "t")
    assert [r.name for r in again] == [r.name for r in planned[sent:]]
    assert len({r.name for r in planned}) == count


def _options(args: list[str]) -> SubmitOptions:
    values = dict(zip(args[::2], args[1::2], strict=True))
    return SubmitOptions(
        name=values["--name"],
        count=int(values.get("--count", "1")),
        start_index=int(values.get("--start-index", "1")),
    )
