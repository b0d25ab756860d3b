"""`quotactl status -o json` on a big queue: 20 shares, 10,000 jobs in mixed states.

Run: python tests/benchmarks/bench_status.py [jobs]

The queue (p5 160; 10 lend_and_borrow, 5 lend and 5 reserve shares of 8 each) is built
through the Batch API on the embedded emulator: jobs arrive in waves with `local advance` in
between, so some have finished, 160 instances are busy (some of them borrowed), and the rest
wait, a few after a preemption. Then the real CLI runs `status -o json` (in process, --debug
for the call counts) with no injected latency and with QUOTACTL_EMULATOR_FAULTS=latency_ms=20.
Targets: under 1 s and under 3 s (reads in parallel).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.aws.session import Target, client, make_session
from quotactl.cli.app import run
from quotactl.emulator import Emulator
from tests.emulator.emulator_support import Served, make_queue, payload

if TYPE_CHECKING:
    from collections.abc import Iterator

P5 = "ml.p5.48xlarge"
SHARES = {
    f"s{i:02d}": (
        {"limit": 8, "strategy": "LEND_AND_BORROW", "borrow": 100, "instance_type": P5}
        if i < 10
        else {"limit": 8, "strategy": "LEND" if i < 15 else "RESERVE", "instance_type": P5}
    )
    for i in range(20)
}
WAVES = 5


def build(state: Path, jobs: int) -> dict[str, int]:
    """The queue and its jobs; returns how many jobs are in each status."""
    emulator = Emulator(state)
    batch = client(
        Target("local", state),
        session=make_session(Target("local", state), emulator=emulator),
        retries={"total_max_attempts": 1},
    )
    make_queue(batch, "bench", capacity={P5: 160}, shares=SHARES)
    rng = random.Random(7)
    names = sorted(SHARES)
    for wave in range(WAVES):
        for index in range(jobs // WAVES):
            # borrowers submit early, lenders late: later waves reclaim lent capacity
            share = rng.choice(names[:10] if wave < 2 else names)
            batch.submit_service_job(
                jobName=f"w{wave}-{index}",
                jobQueue="bench",
                serviceJobType="SAGEMAKER_TRAINING",
                serviceRequestPayload=payload(P5, rng.choice([1, 1, 1, 2, 4]), 86_400),
                quotaShareName=share,
                schedulingPriority=rng.randrange(4),
                tags={"quotactl:duration": rng.choice(["10m", "30m", "2h", "6h"])},
            )
        emulator.advance(rng.choice([600.0, 1800.0]))
    counts: dict[str, int] = {}
    pages = batch.get_paginator("list_service_jobs")
    for status in ("SUBMITTED", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING", "SUCCEEDED"):
        found = sum(
            len(p["jobSummaryList"]) for p in pages.paginate(jobQueue="bench", jobStatus=status)
        )
        counts[status] = found
    batch.close()
    emulator.close()
    return counts


def served_arguments(doc: str, argv: list[str] | None, runs: int) -> argparse.Namespace:
    """``--jobs``, ``--runs`` and ``--state`` of a benchmark that runs on ``served``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--state", type=Path, default=None, help="build once, keep, reuse")
    return parser.parse_args(argv)


@contextlib.contextmanager
def served(state: Path | None, jobs: int) -> Iterator[str]:
    """The URL of a ``local serve`` of the bench queue, on ``state`` (built first where it does
    not exist) or on a fresh one in a temporary directory; prints the load average."""
    with tempfile.TemporaryDirectory() as tmp:
        path = state or Path(tmp) / "bench.db"
        if not path.exists():
            print(f"built: {build(path, jobs)}")
        server = Served(path)
        try:
            with open("/proc/loadavg") as loadavg:
                print(f"load average: {' '.join(loadavg.read().split()[:3])}")
            yield server.url
        finally:
            server.close()


def status_json(state: Path, faults: str | None) -> tuple[float, str, dict[str, Any]]:
    """Wall time of `quotactl status -o json`, its call counts line, and its document."""
    if faults:
        os.environ["QUOTACTL_EMULATOR_FAULTS"] = faults
    else:
        os.environ.pop("QUOTACTL_EMULATOR_FAULTS", None)
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["--state", str(state), "-q", "--debug", "status", "-o", "json"])
    took = time.perf_counter() - start
    assert code == 0, err.getvalue()
    calls = next(line for line in err.getvalue().splitlines() if "API calls" in line)
    return took, calls, json.loads(out.getvalue())


def main(jobs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "bench.db"
        start = time.perf_counter()
        counts = build(state, jobs)
        print(f"built {jobs} jobs on 20 shares in {time.perf_counter() - start:.1f} s: {counts}")
        print(f"load average: {os.getloadavg()[0]:.2f}")
        for faults in (None, "latency_ms=20"):
            runs = [status_json(state, faults) for _ in range(3)]
            took, calls, document = min(runs, key=lambda r: r[0])
            (queue,) = document["queues"]
            borrowed = sum(c["borrowed"] for s in queue["shares"] for c in s["capacity"])
            waiting = sum(s["jobs"]["RUNNABLE"] for s in queue["shares"])
            print(
                f"status -o json, faults={faults or 'none'}: best of 3 {took:.2f} s "
                f"(all: {', '.join(f'{r[0]:.2f}' for r in runs)}); {calls.split(': ', 1)[1]}; "
                f"{waiting} RUNNABLE, {borrowed} instances borrowed"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
