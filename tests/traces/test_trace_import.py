"""``trace import``: public cluster traces, from real published excerpts where the repositories
hold them (tests/traces/public/README.md names each source and licence), become traces that
``simulate`` replays: groups to shares, GPUs to instances, the recorded run as the duration."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, strategies as st

from quotactl.core.simulate.public import Recorded, convert

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

PUBLIC = Path(__file__).parent / "public"
CONFIG = """\
platform: {name: imported, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 16}
queues:
  - {name: training, environment: pool}
teams:
  - name: nlp
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 8}, sharing: lend_and_borrow}
  - name: vision
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 8}, sharing: lend}
"""


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as stream:
        return list(csv.DictReader(stream))


@pytest.mark.parametrize(
    ("kind", "source", "kept", "dropped"),
    [
        ("swf", "workload.swf", 4, "1 job dropped: no recorded start and end"),
        ("philly", "philly_cluster_job_log.json", 2, "2 jobs dropped: no recorded start"),
        ("helios", "helios_cluster_log.csv", 4, "1 job dropped: no GPU"),
        ("alibaba-pai", "pai", 3, "1 job dropped: no recorded start and end"),
        ("alibaba-openb", "openb_pod_list_default.csv", 260, "18 jobs dropped: no GPU"),
    ],
)
def test_each_format_imports_and_replays(
    cli: Callable[..., CliResult],
    tmp_path: Path,
    kind: str,
    source: str,
    kept: int,
    dropped: str,
) -> None:
    out = tmp_path / "trace.csv"
    found = cli(
        "trace", "import", "--format", kind, str(PUBLIC / source), "--map", "*=nlp",
        "--out", str(out),
    )  # fmt: skip
    assert found.exit_code == 0, found.stderr
    assert f"wrote {kept} jobs" in found.stderr
    assert dropped in found.stderr
    rows = _rows(out)
    assert len(rows) == kept
    assert float(rows[0]["submit_time"]) == 0.0
    times = [float(r["submit_time"]) for r in rows]
    assert times == sorted(times)
    (tmp_path / "config.yaml").write_text(CONFIG)
    replay = cli("simulate", str(tmp_path / "config.yaml"), "--trace", str(out))
    assert replay.exit_code == 0, replay.stderr


def test_groups_map_to_shares_and_gpus_to_instances(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    out = tmp_path / "trace.csv"
    found = cli(
        "trace", "import", "--format", "helios", str(PUBLIC / "helios_cluster_log.csv"),
        "--map", "vcJkd=nlp", "--map", "vchbv=vision", "--gpus-per-instance", "4",
        "--instance-type", "ml.g5.12xlarge", "--out", str(out),
    )  # fmt: skip
    assert found.exit_code == 0, found.stderr
    rows = _rows(out)
    # vcpDC has no --map: its job is dropped and counted; the 16-GPU job takes 4 instances
    assert [(r["share"], r["count"], r["duration"]) for r in rows] == [
        ("nlp", "1", "36848"),
        ("vision", "1", "249"),
        ("nlp", "4", "7200"),
    ]
    assert {r["instance_type"] for r in rows} == {"ml.g5.12xlarge"}
    assert "no --map for 1 group: vcpDC (1)" in found.stderr


def test_philly_takes_the_first_attempt_start_and_the_last_end(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    out = tmp_path / "trace.csv"
    source = PUBLIC / "philly_cluster_job_log.json"
    cli("trace", "import", "--format", "philly", str(source), "--map", "*=nlp", "--out", str(out))
    first, second = _rows(out)
    # 01:12:09 to 06:53:12 two days later; 8 GPUs are one p5, 2 x 2 GPUs also one
    assert first["duration"] == str(2 * 86400 + 5 * 3600 + 41 * 60 + 3)
    assert (first["count"], second["count"]) == ("1", "1")
    assert float(second["submit_time"]) == 201.0


def test_bad_maps_and_bad_files_are_named(cli: Callable[..., CliResult], tmp_path: Path) -> None:
    base = ("trace", "import", "--format", "swf", str(PUBLIC / "workload.swf"))
    out = ("--out", str(tmp_path / "t.csv"))
    bad = cli(*base, "--map", "nlp", *out)
    assert bad.exit_code == 64
    assert "GROUP=SHARE" in bad.stderr
    broken = tmp_path / "broken.swf"
    broken.write_text("1 0 10\n")
    found = cli("trace", "import", "--format", "swf", str(broken), "--map", "*=nlp", *out)
    assert found.exit_code == 1
    assert f"{broken}:1: expected 18 fields" in found.stderr
    missing = cli("trace", "import", "--format", "alibaba-pai", str(tmp_path), "--map", "*=a", *out)
    assert missing.exit_code == 1
    assert "pai_task_table.csv" in missing.stderr


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.floats(0, 1e6),
            st.floats(0, 1e5),
            st.floats(0, 64),
        ),
        max_size=30,
    ),
    st.integers(1, 8),
)
def test_convert_keeps_mapped_runs_in_order(
    jobs: list[tuple[str, float, float, float]], per_instance: int
) -> None:
    records = [
        Recorded(g, at, at + 5, at + 5 + run, gpus, f"j{i}", i)
        for i, (g, at, run, gpus) in enumerate(jobs)
    ]
    rows, tally = convert(records, {"a": "nlp", "b": "vision"}, "ml.p5.48xlarge", per_instance)
    assert tally.read == len(jobs)
    assert tally.kept == len(rows)
    assert tally.unmapped["c"] == sum(1 for j in jobs if j[0] == "c")
    assert all(r[3] >= 1 for r in rows)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert tally.kept + sum(tally.unmapped.values()) + sum(tally.dropped.values()) == len(jobs)
