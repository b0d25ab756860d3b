"""Benchmark of ``quotactl simulate --compare``: a script, not a test (pytest does not collect it).

    python tests/benchmarks/bench_compare.py             # 1,000,000 jobs
    python tests/benchmarks/bench_compare.py --jobs 100000

It writes the synthetic trace of ``bench_simulate.py`` (one queue, 20 quota shares over 3
instance types) and, each in a fresh process so that peak memory is its own:

* ``single``: one ``simulate`` of the trace, as the command runs it (``run_one``: the CSV
  parsed by a worker process while this one simulates);
* ``compare``: ``simulate --compare`` of the same trace (``run_both`` + ``compare``): the
  proposal halves every borrow limit; the base config replays in a worker process while
  this one replays the proposal, each parsing the CSV itself.

Target: ``compare`` under 1.3x the wall time of ``single`` with 2 cores. Peak memory is
reported for the main process and for its largest child (the parse or replay worker).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.core.simulate import (
    Side,
    compare,
    generate_trace,
    run_both,
    run_one,
    write_trace,
)
from tests.benchmarks.bench_simulate import bench_queue

if TYPE_CHECKING:
    from quotactl.core.engine import QueueModel

RUNS = ("single", "compare")


def proposal(queue: QueueModel) -> QueueModel:
    """The change under review: every LEND_AND_BORROW share may borrow half as much."""
    shares = tuple(
        replace(s, borrow_limit=s.borrow_limit // 2 if s.borrow_limit > 0 else 100)
        for s in queue.shares
    )
    return replace(queue, shares=shares)


def peak_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run(kind: str, trace: Path) -> dict[str, float]:
    base = bench_queue()
    start, cpu = time.perf_counter(), time.process_time()
    if kind == "single":
        jobs = run_one([base], trace).jobs
        verdict = ""
    else:
        before, after = run_both(Side("base", (base,)), Side("proposal", (proposal(base),)), trace)
        comparison = compare(before, after)
        jobs, verdict = comparison.trace_jobs, comparison.verdict
    return {
        "seconds": time.perf_counter() - start,
        "cpu": time.process_time() - cpu,
        "jobs": jobs,
        "peak_mib": peak_mib(resource.RUSAGE_SELF),
        "child_peak_mib": peak_mib(resource.RUSAGE_CHILDREN),
        "child_cpu": _cpu(resource.RUSAGE_CHILDREN),
        "verdict": verdict,  # type: ignore[dict-item]
    }


def child(kind: str, trace: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--run", kind, "--trace", str(trace)],
        check=True,
        capture_output=True,
        text=True,
    )
    measured: dict[str, float] = json.loads(out.stdout)
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark simulate --compare against one run.")
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--run", choices=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run(args.run, args.trace)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.csv"
        with trace.open("w") as out:
            write_trace(generate_trace([bench_queue()], args.jobs, args.seed), out)
        size = trace.stat().st_size / 2**20
        print(f"trace: {args.jobs:,} jobs, 20 shares x 3 types, {size:.0f} MiB")
        print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()}")
        results = {kind: child(kind, trace) for kind in RUNS}
    header = f"{'run':<10}{'seconds':>9}{'cpu s':>8}{'child cpu s':>13}{'peak MiB':>10}"
    print(header + f"{'child MiB':>11}")
    for kind, r in results.items():
        print(
            f"{kind:<10}{r['seconds']:>9.2f}{r['cpu']:>8.2f}{r['child_cpu']:>13.2f}"
            f"{r['peak_mib']:>10.0f}{r['child_peak_mib']:>11.0f}"
        )
    print("(cpu s: the main process; child: the parse worker (single) or the replay worker)")
    ratio = results["compare"]["seconds"] / results["single"]["seconds"]
    print(f"load average after: {os.getloadavg()}")
    print(f"verdict: {results['compare']['verdict']}")
    print(f"  {'ok  ' if ratio < 1.3 else 'MISS'} compare under 1.3x one run ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
