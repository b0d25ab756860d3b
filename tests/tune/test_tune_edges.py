"""``tune``'s edges: ``--out`` checked before the search, ``--override NAME``, and rules about
other queues than the one tuned."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.tune.support import PLATFORM, TEAMS, write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


@pytest.fixture
def workload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    return write_config(tmp_path), write_trace(tmp_path / "trace.csv", days=2)


def test_an_out_that_cannot_be_written_is_refused_before_the_search(
    cli: Cli, workload: tuple[Path, Path]
) -> None:
    configs, trace = workload
    found = cli("tune", str(configs), "--trace", str(trace), "--budget", "50", "--out", "/proc/x")
    assert found.exit_code == 1, found.stderr
    assert found.stderr.startswith("error[io-error]: --out /proc/x cannot be written")
    assert "nothing was searched" in found.stderr
    assert found.stdout == ""


@pytest.mark.parametrize("inside", ["", "tuned"])
def test_an_out_in_the_configuration_read_is_refused_and_nothing_overwritten(
    cli: Cli, workload: tuple[Path, Path], inside: str
) -> None:
    configs, trace = workload
    before = (configs / "teams" / "all.yaml").read_text()
    out = configs / inside if inside else configs
    found = cli("tune", str(configs), "--trace", str(trace), "--budget", "20", "--out", str(out))
    assert found.exit_code == 1, found.stderr
    assert "error[io-error]" in found.stderr
    assert "configuration read" in found.stderr
    assert (configs / "teams" / "all.yaml").read_text() == before
    assert not (configs / "tuned").exists()


RULES = """\
rules:
  - name: nlp-waits-under-an-hour
    level: soft
    check: max_wait
    team: nlp
    p95: 1h
"""


def test_override_accepts_a_failing_soft_rule(cli: Cli, workload: tuple[Path, Path]) -> None:
    """Without --override no candidate the search tries gets nlp's p95 under an hour, so
    nothing is proposed; with it, the search proposes (a proposal failing it says so:
    overridden)."""
    configs, trace = workload
    (configs / "rules.yaml").write_text(RULES)
    base = ("tune", str(configs), "--trace", str(trace), "--budget", "20", "-o", "json")
    strict = json.loads(cli(*base).stdout)
    assert strict["front"] == []
    found = cli(*base, "--override", "nlp-waits-under-an-hour")
    assert found.exit_code == 0, found.stderr
    document = json.loads(found.stdout)
    assert document["front"]
    results = {r["result"] for entry in document["front"] for r in entry["rules"]}
    assert results <= {"pass", "overridden"}
    unknown = cli(*base, "--override", "nope")
    assert unknown.exit_code != 0
    assert "nope" in unknown.stderr


OTHER_QUEUE = """\
  - name: cpu-pool
    capacity: {ml.g5.12xlarge: 4}
"""
OPS = """\
  - name: ops
    shares:
      - queue: batch
        capacity: {ml.g5.12xlarge: 4}
        sharing: reserve
"""
OPS_RULE = """\
rules:
  - name: ops-keeps-ten   # cannot hold: ops has 4 and its queue is not the one tuned
    level: hard
    check: min_capacity
    team: ops
    capacity: {ml.g5.12xlarge: 10}
"""


def test_a_rule_about_another_queue_does_not_refuse_the_tuned_queues_candidates(
    cli: Cli, tmp_path: Path
) -> None:
    configs = tmp_path / "configs"
    (configs / "teams").mkdir(parents=True)
    platform = PLATFORM.replace("\nqueues:", OTHER_QUEUE + "\nqueues:")
    platform += "  - name: batch\n    environment: cpu-pool\n"
    (configs / "platform.yaml").write_text(platform)
    (configs / "teams" / "all.yaml").write_text(TEAMS + OPS)
    (configs / "rules.yaml").write_text(OPS_RULE)
    trace = write_trace(tmp_path / "plain.csv", days=2)
    qualified = tmp_path / "trace.csv"
    qualified.write_text(
        trace.read_text()
        .replace(",nlp,", ",training/nlp,")
        .replace(",research,", ",training/research,")
    )
    found = cli(
        "tune", str(configs), "--trace", str(qualified), "--queue", "training",
        "--budget", "20", "-o", "json",
    )  # fmt: skip
    assert found.exit_code == 0, found.stderr
    document = json.loads(found.stdout)
    assert document["front"]
