"""Every bad job spec in tests/config/jobspecs/invalid/ makes `submit` exit 1 with the file
named and positioned (FILE:LINE:COL), no traceback, and nothing submitted."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import run
from tests.cli.jobs_support import CONFIG, Jobs, all_jobs, batch_client

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

CORPUS = Path(__file__).resolve().parents[1] / "config" / "jobspecs" / "invalid"
EXPECTED = {
    "bad-duration.yaml": ("5:14", "max_runtime: invalid duration"),
    "bad-input-s3.yaml": ("6:10", "inputs.train: '/data/train' is not an S3 URI"),
    "bad-name.yaml": ("5:7", "name: 'my job' is not a valid name"),
    "bad-output-s3.yaml": ("4:12", "output_s3: 'https://bucket.s3.amazonaws.com/out/' is not"),
    "bad-role-arn.yaml": ("3:11", "role_arn: 'arn:aws:iam::123456789012:user/alice' is not an"),
    "boolean-hyperparameter.yaml": ("6:12", "hyperparameters.use_amp: expected a string"),
    "comments-only.yaml": ("1:1", "file is empty"),
    "duplicate-key.yaml": ("5:1", "duplicate key 'image'"),
    "duration-too-long.yaml": ("5:14", "max_runtime: must be whole seconds from 1s to 28d"),
    "empty-file.yaml": ("1:1", "file is empty: expected a job spec"),
    "list-document.yaml": ("1:1", "a job spec must be a mapping"),
    "missing-image.yaml": ("1:1", "the file: missing required key 'image'"),
    "negative-count.yaml": ("5:17", "instance_count: must be at least 1, got -2"),
    "negative-preemption-retries.yaml": ("5:21", "preemption_retries: must be at least 0"),
    "non-string-hyperparameter.yaml": ("6:11", "hyperparameters.epochs: expected a string"),
    "priority-out-of-range.yaml": ("5:11", "priority: must be at most 9999, got 10000"),
    "raw-bad-input-mode.json": ("3:75", "AlgorithmSpecification.TrainingInputMode: 'Filez'"),
    "raw-bad-instance-type.yaml": ("5:32", "ResourceConfig.InstanceType: 'p5.48xlarge' is not"),
    "raw-hyperparameter-number.json": ("7:33", "HyperParameters.epochs: expected a string"),
    "raw-json-syntax.json": ("3:1", "JSON syntax error: Expecting value"),
    "raw-missing-role.yaml": ("1:1", "the request: missing required member 'RoleArn'"),
    "raw-no-instances.json": ("1:1", "the request names no instances"),
    "raw-string-count.yaml": ("5:61", "ResourceConfig.InstanceCount: expected a whole number"),
    "raw-unknown-member.json": ("6:74", "unknown member 'VolumeSizeGB' in ResourceConfig (did"),
    "raw-zero-count.yaml": ("5:61", "ResourceConfig.InstanceCount: must be at least 1, got 0"),
    "scalar-document.yaml": ("1:1", "a job spec must be a mapping"),
    "string-count.yaml": ("5:17", "instance_count: expected a whole number, got the string"),
    "string-volume.yaml": ("5:12", "volume_gb: expected a whole number, got the string '100'"),
    "tag-not-string.yaml": ("6:9", "tags.team: expected a string, got a list"),
    "unknown-instance-type.yaml": ("2:16", "instance_type: 'ml.g5.xlargee' is not a SageMaker"),
    "unknown-key-typo.yaml": ("5:1", "unknown key 'instance_cout' (did you mean 'instance_count'"),
    "unknown-key.yaml": ("5:1", "unknown key 'gpus'"),
    "yaml-indentation.yaml": ("3:11", "YAML syntax error: mapping values are not allowed here"),
    "yaml-unclosed-quote.yaml": ("3:1", "YAML syntax error: found unexpected end of stream"),
    "zero-count.yaml": ("5:17", "instance_count: must be at least 1, got 0"),
    "zero-volume.yaml": ("5:12", "volume_gb: must be at least 1, got 0"),
}


def test_the_corpus_has_a_case_for_every_file_and_at_least_twenty() -> None:
    assert sorted(p.name for p in CORPUS.iterdir()) == sorted(EXPECTED)
    assert len(EXPECTED) >= 20


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One emulated account with the test queue, shared by the corpus (it must stay empty)."""
    tmp = tmp_path_factory.mktemp("corpus")
    (tmp / "config.yaml").write_text(CONFIG)
    state, config = str(tmp / "state.db"), str(tmp / "config.yaml")
    assert run(["-q", "--state", state, "apply", config, "--auto-approve"]) == 0
    return tmp


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_job_spec_fails_positioned_and_submits_nothing(
    name: str, account: Path, cli: Callable[..., CliResult]
) -> None:
    jobs = Jobs(cli, account)
    where, message = EXPECTED[name]
    path = CORPUS / name
    result = jobs.run("submit", str(path), "--queue", "q", "--share", "a")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{path}:{where}: error: {message}"), first
    assert re.search(
        r"^error\[spec-invalid\]: job spec has \d+ errors?: nothing was submitted$",
        result.stderr,
        re.MULTILINE,
    )
    assert all_jobs(batch_client(account / "state.db")) == []
