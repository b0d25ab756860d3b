"""``simulate PATH --compare OTHER_PATH`` as a reviewer runs it on a pull request.

The proposal turns vision's share from LEND to RESERVE. nlp (LEND_AND_BORROW 2 of 4) submits
four one-hour jobs at 0 s: on the base config two run on vision's idle instances at once, on
the proposal they wait an hour for nlp's own. vision's one job at 7200 s runs at once on both.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

BASE = """\
platform: {name: whatif, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 4}
queues:
  - name: training
    environment: pool
teams:
  - name: vision
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: lend
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: lend_and_borrow
"""
TRACE = "submit_time,share,instance_type,count,duration\n" + "".join(
    f"{at},{share},ml.p5.48xlarge,1,3600\n" for at, share in [(0, "nlp")] * 4 + [(7200, "vision")]
)


def pair(before: object, after: object) -> dict[str, object]:
    return {"before": before, "after": after}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    base, proposal, trace = tmp_path / "base.yaml", tmp_path / "pr.yaml", tmp_path / "t.csv"
    base.write_text(BASE)
    proposal.write_text(BASE.replace("sharing: lend\n", "sharing: reserve\n"))
    trace.write_text(TRACE)
    return base, proposal, trace


def test_json_comparison_has_every_figure_before_and_after(
    cli: Cli, files: tuple[Path, Path, Path]
) -> None:
    base, proposal, trace = files
    result = cli(
        "simulate", str(proposal), "--trace", str(trace), "--compare", str(base), "-o", "json"
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["format_version"] == "1"
    assert (document["run"]["config"], document["baseline"]["config"]) == (str(proposal), str(base))
    assert document["verdict"] == (
        "the change keeps utilisation at 50%; no share gains;"
        " team nlp loses (p95 wait 0 s → 60 min); no job is preempted"
    )
    comparison = document["comparison"]
    assert {k: comparison[k] for k in ("against", "gains", "loses", "added", "removed")} == {
        "against": "config",
        "gains": [],
        "loses": ["training/nlp"],
        "added": [],
        "removed": [],
    }
    assert comparison["queues"] == [
        {"queue": "training", "change": "kept", "utilisation": pair(0.5, 0.5)}
    ]
    vision, nlp = comparison["shares"]
    assert nlp == {
        "queue": "training",
        "share": "nlp",
        "team": "nlp",
        "outcome": "loses",
        "reason": "p95 wait 0 s → 60 min",
        "jobs_not_replayed": 0,
        "jobs_finished": pair(4, 4),
        "jobs_never_started": pair(0, 0),
        "jobs_terminated": pair(0, 0),
        "wait_mean_seconds": pair(0.0, 1800.0),
        "wait_p95_seconds": pair(0.0, 3600.0),
        "preemptions": pair(0, 0),
        "work_lost_instance_hours": pair(0.0, 0.0),
        "borrowed_instance_hours": pair(2.0, 0.0),
        "lent_instance_hours": pair(0.0, 0.0),
    }
    assert (vision["outcome"], vision["lent_instance_hours"]) == ("unchanged", pair(2.0, 0.0))


def test_markdown_is_a_pr_comment_with_the_verdict_first(
    cli: Cli, files: tuple[Path, Path, Path]
) -> None:
    base, proposal, trace = files
    result = cli(
        "simulate", str(proposal), "--trace", str(trace), "--compare", str(base), "-o", "markdown"
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"### quotactl what-if: `{proposal}` against `{base}`"
    assert lines[4].startswith("**Verdict:** the change keeps utilisation at 50%")
    assert "| `training/nlp` | **loses** | 0 s → 60 min | 0 s → 30 min |" in result.stdout


def test_baseline_and_compare_cannot_be_combined(cli: Cli, files: tuple[Path, Path, Path]) -> None:
    base, proposal, trace = files
    result = cli(
        "simulate",
        str(proposal),
        "--trace",
        str(trace),
        "--compare",
        str(base),
        "--baseline",
        "reserve",
    )
    assert result.exit_code == 64
    assert result.stdout == ""


def test_compare_runs_in_a_worker_process_with_the_same_result(
    cli: Cli, files: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from quotactl.core.simulate import reader

    base, proposal, trace = files
    args = ("simulate", str(proposal), "--trace", str(trace), "--compare", str(base), "-o", "json")
    here = json.loads(cli(*args).stdout)
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0)
    in_worker = cli(*args)
    assert in_worker.exit_code == 0, in_worker.stderr
    assert json.loads(in_worker.stdout) == here


def test_an_error_in_the_trace_reaches_the_user_from_either_process(
    cli: Cli, files: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from quotactl.core.simulate import reader

    base, proposal, trace = files
    trace.write_text(TRACE + "9000,nobody,ml.p5.48xlarge,1,60\n")
    monkeypatch.setattr(reader, "PARALLEL_BYTES", 0)
    result = cli("simulate", str(proposal), "--trace", str(trace), "--compare", str(base))
    assert result.exit_code == 1
    assert f"error[trace-invalid]: {trace}:7: no quota share 'nobody'" in result.stderr
