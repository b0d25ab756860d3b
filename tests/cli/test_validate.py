"""`quotactl validate` and `quotactl schema` as a user and a CI pipeline see them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


PLATFORM = """\
platform: {name: demo, region: us-east-1}
environments:
  - {name: gpu, capacity: {ml.p5.48xlarge: 8}}
queues:
  - {name: training, environment: gpu}
"""
UNDER_CLAIMED_TEAM = """\
teams:
  - name: nlp
    shares: [{queue: training, capacity: {ml.p5.48xlarge: 6}, sharing: reserve}]
"""
BAD_TEAM = """\
teams:
  - name: nlp
    shares: [{queue: trainig, capacity: {ml.p5.48xlarge: 8}, sharing: reserve}]
"""


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Write configs/platform.yaml plus configs/team.yaml in a fresh working directory."""
    monkeypatch.chdir(tmp_path)

    def write(team: str) -> None:
        (tmp_path / "configs").mkdir(exist_ok=True)
        (tmp_path / "configs" / "platform.yaml").write_text(PLATFORM)
        (tmp_path / "configs" / "team.yaml").write_text(team)

    return write


def test_valid_demo_prints_a_summary_and_exits_0(
    cli: Callable[..., CliResult], repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo_root)
    result = cli("validate", "configs/demo")
    assert result.exit_code == 0
    summary, heading, *rules = result.stdout.splitlines()
    assert summary == "configs/demo: 6 files, 1 environment, 1 queue, 4 teams, 4 shares: valid"
    assert heading == "Rules (4 rules: 4 pass):"
    assert [line.split()[:2] for line in rules] == [
        ["pass", "no-overcommit"],
        ["pass", "reserve-at-most-30pct"],
        ["pass", "bounded-borrowing"],
        ["pass", "every-share-has-an-owner"],
    ]
    assert result.stderr == ""


def test_without_paths_validate_reads_configs(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(UNDER_CLAIMED_TEAM.replace("6", "8"))
    result = cli("validate")
    assert result.exit_code == 0
    assert result.stdout.startswith("configs: 2 files,")


def test_warnings_are_shown_on_stderr_and_pass(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(UNDER_CLAIMED_TEAM)
    result = cli("validate")
    assert result.exit_code == 0
    assert result.stderr.startswith(
        "configs/platform.yaml:3:28: warning: shares claim 6 of the 8 ml.p5.48xlarge"
    )
    assert result.stdout.endswith(": valid, 1 warning\n")


def test_strict_turns_warnings_into_exit_1(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(UNDER_CLAIMED_TEAM)
    result = cli("validate", "--strict")
    assert result.exit_code == 1
    assert "configs/platform.yaml:3:28: warning: shares claim 6" in result.stderr
    assert "error[config-invalid]: 1 warning with --strict" in result.stderr
    assert result.stdout == ""


def test_errors_go_to_stderr_with_the_error_code_and_exit_1(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(BAD_TEAM)
    result = cli("validate")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "configs/platform.yaml:3:28: warning: no share claims the 8 ml.p5.48xlarge of "
        "environment 'gpu': no job can use them",
        "configs/team.yaml:3:22: error: share 'nlp': queue 'trainig' is not defined "
        "(did you mean 'training'?)",
        "error[config-invalid]: configuration has 1 error",
    ]


def test_a_missing_path_is_an_io_error_without_traceback(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "no/such/dir")
    assert result.exit_code == 1
    assert "error[io-error]: config path no/such/dir does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_debug_shows_the_traceback_for_a_config_error(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(BAD_TEAM)
    result = cli("--debug", "validate")
    assert result.exit_code == 1
    assert "Traceback" in result.stderr


def test_json_report_for_a_valid_config(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(UNDER_CLAIMED_TEAM)
    result = cli("validate", "-o", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report == {
        "format_version": "1",
        "valid": True,
        "paths": ["configs"],
        "error": None,
        "diagnostics": [
            {
                "file": "configs/platform.yaml",
                "line": 3,
                "column": 28,
                "severity": "warning",
                "message": "shares claim 6 of the 8 ml.p5.48xlarge of environment 'gpu': "
                "no job can use the other 2",
            }
        ],
        "summary": {
            "files": ["configs/platform.yaml", "configs/team.yaml"],
            "environments": 1,
            "queues": 1,
            "teams": 1,
            "shares": 1,
        },
        "rules": [],
    }
    assert result.stderr == ""


def test_json_report_for_an_invalid_config_is_only_json_on_stdout(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(BAD_TEAM)
    result = cli("validate", "--output", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["valid"] is False
    assert report["error"]["code"] == "config-invalid"
    assert [(d["file"], d["line"], d["column"], d["severity"]) for d in report["diagnostics"]] == [
        ("configs/platform.yaml", 3, 28, "warning"),
        ("configs/team.yaml", 3, 22, "error"),
    ]
    assert report["summary"] is None
    assert "error[config-invalid]" in result.stderr


def test_json_report_for_a_missing_path(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "-o", "json", "nowhere.yaml")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["error"]["code"] == "io-error"
    assert report["diagnostics"] == []


def test_strict_json_report_says_invalid_and_keeps_the_summary(
    cli: Callable[..., CliResult], config_dir: Callable[[str], None]
) -> None:
    config_dir(UNDER_CLAIMED_TEAM)
    result = cli("validate", "--strict", "-o", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["valid"], report["summary"]["shares"]) == (False, 1)
    assert [d["severity"] for d in report["diagnostics"]] == ["warning"]


def test_an_unknown_output_format_is_a_usage_error(cli: Callable[..., CliResult]) -> None:
    result = cli("validate", "-o", "yaml")
    assert result.exit_code == 64


def test_schema_prints_a_json_schema(cli: Callable[..., CliResult]) -> None:
    result = cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(schema["properties"]) == {"platform", "environments", "queues", "teams", "rules"}
    assert "required" not in schema
