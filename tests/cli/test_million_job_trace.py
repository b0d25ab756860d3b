"""A million-job generated trace is one ``simulate`` accepts.

Generating and replaying a million jobs takes over a minute of CPU, too long for the suite
(run by hand: see CHANGELOG.md). Here: a trace whose last row is as late as the million-job
trace of the demo config (seed 3) is replayed, and the generator's own arithmetic shows a
million jobs fit the limit with room to spare.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = str(Path(__file__).resolve().parents[2] / "configs" / "demo")
MILLION_SPAN = 351_023_312.9
"""The last submit_time of ``trace generate configs/demo --jobs 1000000 --seed 3``: 11.1
years (measured)."""


def test_a_trace_as_long_as_a_million_generated_jobs_is_replayed(cli: Cli) -> None:
    Path("t.csv").write_text(
        "submit_time,share,instance_type,count,duration\n"
        "0,nlp,ml.p5.48xlarge,1,60\n"
        f"{MILLION_SPAN},nlp,ml.p5.48xlarge,1,60\n"
    )
    result = cli("-q", "simulate", DEMO, "--trace", "t.csv", "-o", "json")
    assert result.exit_code == 0, result.stderr


def test_a_million_generated_jobs_span_well_within_the_limit(cli: Cli) -> None:
    """The first 20,000 of the demo's seed-3 jobs are the first 20,000 of its million; their
    span times 50 is the million's (the generator's per-share streams are endless and merged,
    and their rates repeat week over week), and a trace five times longer is still replayed."""
    out = cli("-q", "trace", "generate", DEMO, "--jobs", "20000", "--seed", "3", "--out", "g.csv")
    assert out.exit_code == 0, out.stderr
    with Path("g.csv").open() as f:
        rows = list(csv.DictReader(f))
    span = float(rows[-1]["submit_time"])
    assert 0.9 * MILLION_SPAN < 50 * span < 1.1 * MILLION_SPAN
    Path("t.csv").write_text(
        "submit_time,share,instance_type,count,duration\n"
        f"{5 * MILLION_SPAN},nlp,ml.p5.48xlarge,1,60\n"
    )
    result = cli("-q", "simulate", DEMO, "--trace", "t.csv")
    assert result.exit_code == 0, result.stderr
