"""``quotactl history`` of 10,000 jobs over ``quotactl local serve``.

    python tests/benchmarks/bench_history.py [jobs]

Builds the queue of ``bench_status.py`` (20 shares, JOBS jobs in waves, some finished, some
running, some preempted and waiting), serves it with ``local serve`` (a subprocess) and runs
the real CLI in process against that endpoint: ``history --out FILE`` three times, then
``history --append`` on the result (which reads again only the jobs of unfinished rows).
Prints the wall time, this process's CPU time and the API calls of each. The time limit is
for the computation beyond the reads: that part (turning every DescribeServiceJob response
into ledger rows and writing the ledger) is timed on its own as well. Target: under 5 s.
Nothing is asserted.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.aws import responses
from quotactl.aws.ledger import tried
from quotactl.aws.session import Target, client, make_session
from quotactl.cli.app import run
from quotactl.core.history.attempts import attempts_of
from quotactl.core.history.ledger import Attempt, write_ledger
from tests.benchmarks.bench_status import build
from tests.emulator.emulator_support import Served

TARGET_S = 5.0


def history(url: str, out: Path, *extra: str) -> tuple[float, float, str]:
    err = io.StringIO()
    began, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = run(["--endpoint-url", url, "history", "--out", str(out), *extra])
    took, cpu = time.perf_counter() - began, time.process_time() - cpu
    assert code == 0, err.getvalue()
    line = next(x for x in err.getvalue().splitlines() if "API call" in x)
    return took, cpu, line.split("; ", 1)[1]


def computation(state: Path, out: Path) -> tuple[float, int]:
    """The rows of every job from responses read beforehand: (CPU seconds, rows)."""
    target = Target("local", state)
    batch = client(target, session=make_session(target))
    pages = batch.get_paginator("list_service_jobs").paginate(
        jobQueue="bench", filters=[{"name": "AFTER_CREATED_AT", "values": ["0"]}]
    )
    summaries = [s for page in pages for s in page["jobSummaryList"]]
    details = [batch.describe_service_job(jobId=s["jobId"]) for s in summaries]
    batch.close()
    began = time.process_time()
    rows: list[Attempt] = []
    for summary, detail in zip(summaries, details, strict=True):
        job = responses.live_job(summary, "bench", detail)
        rows += attempts_of(job, tried(detail), None).rows
    write_ledger(out, rows)
    return time.process_time() - began, len(rows)


def main(jobs: int) -> None:
    os.environ.pop("QUOTACTL_EMULATOR_FAULTS", None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        state = root / "bench.db"
        began = time.perf_counter()
        counts = build(state, jobs)
        print(f"built {jobs:,} jobs in {time.perf_counter() - began:.1f} s: {counts}")
        print(f"load average: {os.getloadavg()[0]:.2f}")
        served = Served(state)
        try:
            out = root / "ledger.csv"
            for _ in range(3):
                took, cpu, calls = history(served.url, out)
                print(f"history: {took:.2f} s wall, {cpu:.2f} s CPU here; {calls}")
            took, cpu, calls = history(served.url, out, "--append")
            print(f"history --append: {took:.2f} s wall, {cpu:.2f} s CPU here; {calls}")
            rows = len(out.read_text().splitlines()) - 1
            print(f"ledger: {rows:,} attempts")
        finally:
            served.close()
        cpu, rows = computation(state, root / "again.csv")
        print(
            f"the computation beyond the reads ({rows:,} rows): {cpu:.2f} s CPU"
            f" (target < {TARGET_S:g} s)"
        )
        print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
