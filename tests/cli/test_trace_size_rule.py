"""One behaviour for every trace size: a trace with rows out of submission order is replayed
sorted, with the same note naming the same row, whether it is read here (small) or by the
parallel reader (big, faked here by lowering the threshold to 0 bytes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.core.simulate import reader
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = str(REPO_ROOT / "configs" / "demo")
MODES = {
    "simulate": [],
    "baseline": ["--baseline", "reserve"],
    "compare": ["--compare", str(REPO_ROOT / "configs" / "demo")],
}


def shuffled_trace(folder: Path, cli: Cli, swaps: list[int]) -> Path:
    trace = folder / "trace.csv"
    if not trace.exists():
        assert cli("trace", "generate", DEMO, "--jobs", "40", "--out", str(trace)).exit_code == 0
    lines = trace.read_text().splitlines(keepends=True)
    header, rows = lines[:1], lines[1:]
    for i in swaps:  # swap a row with the next one
        rows[i], rows[i + 1] = rows[i + 1], rows[i]
    out = folder / "unsorted.csv"
    out.write_text("".join(header + rows))
    return out


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    swaps=st.lists(st.integers(0, 38), min_size=1, max_size=3, unique=True),
    mode=st.sampled_from(sorted(MODES)),
)
def test_an_unsorted_trace_is_replayed_sorted_with_the_same_note_at_every_size(
    swaps: list[int], mode: str, tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = shuffled_trace(tmp_path, cli, swaps)
    argv = ["simulate", DEMO, "--trace", str(trace), *MODES[mode], "-o", "json"]
    small = cli(*argv)
    with monkeypatch.context() as patch:
        patch.setattr(reader, "PARALLEL_BYTES", 0)
        big = cli(*argv)
    assert small.exit_code == 0, small.stderr
    assert (big.exit_code, big.stdout, big.stderr) == (0, small.stdout, small.stderr)
    assert "replaying the trace sorted by submit_time" in small.stderr
