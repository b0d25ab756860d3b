"""``quotactl simulate`` and ``quotactl trace generate`` as a user runs them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from quotactl.core.simulate import reader

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

CONFIG = """\
platform: {name: whatif, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.g5.12xlarge: 4}
queues:
  - name: training
    environment: pool
teams:
  - name: alpha
    shares:
      - queue: training
        capacity: {ml.g5.12xlarge: 2}
        sharing: lend_and_borrow
  - name: beta
    shares:
      - queue: training
        capacity: {ml.g5.12xlarge: 2}
        sharing: lend
"""
# alpha fills its 2 instances and borrows beta's 2; at 1800 s beta reclaims one (see
# tests/core/test_simulation.py for the numbers worked out by hand).
TRACE = """\
submit_time,share,instance_type,count,duration
0,alpha,ml.g5.12xlarge,1,3600
0,alpha,ml.g5.12xlarge,1,3600
0,alpha,ml.g5.12xlarge,1,3600
0,alpha,ml.g5.12xlarge,1,3600
1800,beta,ml.g5.12xlarge,1,3600
"""
VERDICT = (
    "sharing raises utilisation from 50% to 100%; team alpha gains (p95 wait 60 min → 0 s);"
    " no share loses; preemptions 0 → 1 (work lost 0.0 → 0.5 instance-hours)"
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    trace = tmp_path / "trace.csv"
    trace.write_text(TRACE)
    return config, trace


def test_text_report_shows_waits_hours_and_the_verdict(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    result = cli("simulate", str(config), "--trace", str(trace), "--baseline", "reserve")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert f"Compared {config} against every share RESERVE on 5 jobs from {trace}" in out
    assert "Queue training: utilisation 50% → 100% (4 \u00d7 ml.g5.12xlarge)" in out
    waits, hours = [line.split() for line in out.splitlines() if line.startswith("alpha")]
    assert waits[:6] == ["alpha", "gains", "60", "min", "\u2192", "0"]
    assert hours[:4] == ["alpha", "0", "\u2192", "1"]  # preemptions before -> after
    assert " ".join(out.split()).endswith(f"Verdict: {VERDICT}")


def test_single_run_text_report_shows_waits_and_hours(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    result = cli("simulate", str(config), "--trace", str(trace))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert f"Simulated 5 jobs from {trace} on queue training" in out
    assert "Queue training: 100% of claimed capacity used (4 \u00d7 ml.g5.12xlarge)" in out
    waits, hours = [line.split() for line in out.splitlines() if line.startswith("alpha")]
    assert waits == ["alpha", "lend+borrow", "4", "0", "0", "s", "0", "s", "0", "s", "0", "s"]
    assert hours == ["alpha", "3.0", "1.5", "0.0", "1", "0.5"]  # own, borrowed, lent, ...


def test_json_report_is_versioned_and_alone_on_stdout(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    result = cli(
        "simulate", str(config), "--trace", str(trace), "-o", "json", "--baseline", "reserve"
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format_version"] == "1"
    assert (document["jobs"], document["verdict"]) == (5, VERDICT)
    run, baseline = document["run"], document["baseline"]
    alpha = next(s for s in run["shares"] if s["share"] == "alpha")
    assert alpha["team"] == "alpha"
    assert alpha["instance_hours"] == {"own": 3.0, "borrowed": 1.5, "lent": 0.0}
    assert alpha["preemptions"] == {"count": 1, "discarded_instance_hours": 0.5}
    assert run["utilisation"] == 1.0
    assert baseline["strategy_override"] == "RESERVE"
    assert baseline["utilisation"] == 0.5


def test_without_baseline_json_has_none(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    document = json.loads(cli("simulate", str(config), "--trace", str(trace), "-o", "json").stdout)
    assert (document["baseline"], document["verdict"]) == (None, None)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("2000,gamma,ml.g5.12xlarge,1,60", ":7: no quota share 'gamma' in the configuration"),
        ("2000,alpha,ml.g5.12xlarge,one,60", ":7: count 'one' is not a whole number"),
    ],
)
def test_a_bad_trace_row_is_a_clear_error_with_its_line(
    cli: Cli, files: tuple[Path, Path], row: str, message: str
) -> None:
    config, trace = files
    trace.write_text(TRACE + row + "\n")
    result = cli("simulate", str(config), "--trace", str(trace))
    assert result.exit_code == 1
    assert f"error[trace-invalid]: {trace}{message}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_trace_file_says_how_to_make_one(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    result = cli("simulate", str(config), "--trace", str(trace.with_name("nope.csv")))
    assert result.exit_code == 1
    assert "error[io-error]: trace file" in result.stderr
    assert "quotactl trace generate" in result.stderr


def test_a_big_trace_is_parsed_in_a_worker_with_the_same_result(
    cli: Cli, files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config, _ = files
    trace = tmp_path / "generated.csv"
    assert (
        cli("trace", "generate", str(config), "--jobs", "2500", "--out", str(trace)).exit_code == 0
    )
    here = cli("simulate", str(config), "--trace", str(trace), "-o", "json").stdout
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(reader, "BATCH", 7)
    in_worker = cli("simulate", str(config), "--trace", str(trace), "-o", "json")
    assert in_worker.exit_code == 0, in_worker.stderr
    assert json.loads(in_worker.stdout) == json.loads(here)
    assert json.loads(here)["jobs"] == 2500


def test_an_error_found_by_the_worker_reaches_the_user(
    cli: Cli, files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    config, trace = files
    trace.write_text(TRACE + "2000,alpha,ml.g5.12xlarge,1,-1\n")
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0)
    result = cli("simulate", str(config), "--trace", str(trace))
    assert result.exit_code == 1
    assert f"error[trace-invalid]: {trace}:7: duration -1 must be from 0 to" in result.stderr


def test_json_lines_traces_work_too(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    lines = [
        json.dumps(
            dict(
                zip(
                    ("submit_time", "share", "instance_type", "count", "duration"), row, strict=True
                )
            )
        )
        for row in [(0, "alpha", "ml.g5.12xlarge", 1, 60), (5, "beta", "ml.g5.12xlarge", 2, 60)]
    ]
    jsonl = trace.with_suffix(".jsonl")
    jsonl.write_text("\n".join(lines) + "\n")
    document = json.loads(cli("simulate", str(config), "--trace", str(jsonl), "-o", "json").stdout)
    assert [s["jobs"]["finished"] for s in document["run"]["shares"]] == [1, 1]


def test_generated_trace_is_deterministic_and_summarised_on_stderr(
    cli: Cli, files: tuple[Path, Path], tmp_path: Path
) -> None:
    config, _ = files
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    result = cli(
        "trace", "generate", str(config), "--jobs", "300", "--seed", "9", "--out", str(first)
    )
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "quotactl: wrote 300 jobs over" in result.stderr
    assert "training/alpha: load" in result.stderr
    cli("trace", "generate", str(config), "--jobs", "300", "--seed", "9", "--out", str(second))
    assert first.read_text() == second.read_text()
    assert first.read_text().splitlines()[0] == (
        "submit_time,share,instance_type,count,duration,priority,name"
    )
    assert len(first.read_text().splitlines()) == 301


def test_generated_trace_goes_to_stdout_alone(cli: Cli, files: tuple[Path, Path]) -> None:
    config, _ = files
    result = cli("-q", "trace", "generate", str(config), "--jobs", "5")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert len(result.stdout.splitlines()) == 6


def test_single_run_markdown_is_one_table(cli: Cli, files: tuple[Path, Path]) -> None:
    config, trace = files
    result = cli("simulate", str(config), "--trace", str(trace), "-o", "markdown")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"### quotactl simulate: `{trace}`\n")
    assert (
        "| `training/alpha` | lend+borrow | 4 | 0 | 0 | 0 s | 0 s | 3.0 | 1.5 | 0.0 | 1 | 0.5 |"
        in result.stdout
    )
    assert "Queue `training`: 100% of claimed capacity used." in result.stdout


def test_horizon_ends_the_replay_and_counts_what_is_left(
    cli: Cli, files: tuple[Path, Path]
) -> None:
    """An hour after the last submission (1800 s) alpha's preempted job, restarted at 3600 s,
    still runs: stuck, though it started, so every wait is still finite."""
    config, trace = files
    args = ("simulate", str(config), "--trace", str(trace), "-o", "json")
    whole = json.loads(cli(*args).stdout)
    cut = json.loads(cli(*args, "--horizon", "1h").stdout)
    alpha = [next(s for s in d["run"]["shares"] if s["share"] == "alpha") for d in (whole, cut)]
    assert [(a["jobs"]["finished"], a["jobs"]["stuck"]) for a in alpha] == [(4, 0), (3, 1)]
    assert alpha[1]["jobs"]["never_started"] == 0
    # 5,400 s: a1-a3 ran an hour, a4 half an hour, then from 3600 s to the horizon at 5400 s
    own, borrowed = (alpha[1]["instance_hours"][k] for k in ("own", "borrowed"))
    assert own + borrowed == pytest.approx(3 + 0.5 + 0.5, abs=0.002)


@pytest.mark.parametrize(
    ("horizon", "message"),
    [("0", "--horizon: 0 s is no time to replay in"), ("soon", "--horizon: invalid duration")],
)
def test_a_horizon_that_is_no_duration_is_a_usage_error(
    cli: Cli, files: tuple[Path, Path], horizon: str, message: str
) -> None:
    config, trace = files
    result = cli("simulate", str(config), "--trace", str(trace), "--horizon", horizon)
    assert result.exit_code == 64  # usage
    assert message in result.stderr


def test_the_not_run_footnote_shows_only_when_a_job_did_not_run(
    cli: Cli, files: tuple[Path, Path], tmp_path: Path
) -> None:
    config, trace = files
    every = " ".join(cli("simulate", str(config), "--trace", str(trace)).stdout.split())
    assert "not run:" not in every  # every job ran: nothing to explain
    # beta's second job queues behind its first (2 + 2 > its limit of 2) and, a minute
    # after the last submission, has not started
    late = tmp_path / "late.csv"
    late.write_text(TRACE + "1800,beta,ml.g5.12xlarge,2,3600\n")
    args = ("simulate", str(config), "--trace", str(late), "--horizon", "1m")
    cut = " ".join(cli(*args).stdout.split())
    assert "not run: never started (terminated by the queue's runnable timeout, or still" in cut
    assert "waiting at the replay's horizon)" in cut
