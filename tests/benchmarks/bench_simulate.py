"""Benchmark of ``quotactl simulate``: a script, not a test (pytest does not collect it).

    python tests/benchmarks/bench_simulate.py             # 1,000,000 jobs
    python tests/benchmarks/bench_simulate.py --jobs 100000

It writes a synthetic trace (``generate_trace``) for one queue of 20 quota shares over 3
instance types, then replays it in separate processes, so that each run's peak memory
(maxrss) is its own:

* ``quotactl``: as ``quotactl simulate`` runs it: the CSV parsed by a worker process
  (``trace_rows``), replayed with lending, borrowing and preemption, then summarised;
* ``quotactl-1-core``: the same with the CSV parsed in the simulating process;
* ``quotactl-reserve``: every share forced to RESERVE (no sharing, as in SimPy's model);
* ``simpy``: the simplest comparable system in SimPy 4: per share and instance type a FIFO
  pool of ``limit`` instances, no sharing, the same arrivals through the same reader. It is a
  ``simpy.Container`` rather than a ``simpy.Resource``: a Resource grants one unit per request
  and these jobs ask for 1-8 instances; ``Container.get`` blocks in FIFO order like a share.

Targets (issue #4): 1M jobs in under 10 s, at least 1.5x SimPy's jobs/second, peak memory
under 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.model import Strategy
from quotactl.core.simulate import generate_trace, read_trace, simulate, summarise, write_trace
from quotactl.core.simulate.reader import trace_rows

if TYPE_CHECKING:
    from collections.abc import Generator, Iterable

    from quotactl.core.simulate import TraceRow

TYPES = {"ml.p5.48xlarge": 4, "ml.g5.12xlarge": 12, "ml.m5.xlarge": 24}
STRATEGIES = (
    Strategy.LEND_AND_BORROW,
    Strategy.LEND,
    Strategy.LEND_AND_BORROW,
    Strategy.RESERVE,
    Strategy.LEND,
)
BORROW_LIMITS = (100, -1, 200, 50)
RUNS = ("quotactl", "quotactl-1-core", "quotactl-reserve", "simpy")


def bench_queue() -> QueueModel:
    """20 teams, each with its own mix of the 3 instance types (1-40 instances of each); the
    environment holds exactly what the shares claim; a third have in-share preemption."""
    shares = []
    for i in range(20):
        limits = {
            t: max(1, base * (1 + (i * 7 + j * 3) % 5) // 3)
            for j, (t, base) in enumerate(TYPES.items())
        }
        shares.append(
            ShareModel(
                name=f"team{i:02d}",
                limits=limits,
                strategy=STRATEGIES[i % 5],
                borrow_limit=BORROW_LIMITS[i % 4],
                in_share_preemption=i % 3 == 0,
                team=f"team{i:02d}",
            )
        )
    capacity = {t: sum(s.limits[t] for s in shares) for t in TYPES}
    return QueueModel("training", capacity, tuple(shares))


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_quotactl(trace: Path, kind: str) -> dict[str, float]:
    queue = bench_queue()
    if kind == "quotactl-reserve":
        queue = queue.with_strategy(Strategy.RESERVE)
    start, cpu = time.perf_counter(), time.process_time()
    if kind == "quotactl-1-core":
        with trace.open() as lines:
            result = summarise(simulate([queue], read_trace(lines, str(trace)), str(trace)))
    else:
        result = summarise(simulate([queue], trace_rows(trace), str(trace)))
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "jobs": result.jobs,
        "peak_mib": peak_mib(),
        "utilisation": result.utilisation or 0.0,
        "preemptions": result.preemptions,
    }


def run_simpy(trace: Path) -> dict[str, float]:
    import simpy

    queue = bench_queue()
    env = simpy.Environment()
    pools = {
        f"{s.name}/{t}": simpy.Container(env, capacity=n, init=n)
        for s in queue.shares
        for t, n in s.limits.items()
    }
    totals = {"jobs": 0.0, "wait": 0.0}

    def job(
        pool: simpy.Container, count: int, duration: float, submitted: float
    ) -> Generator[Any, Any, None]:
        yield pool.get(count)
        totals["wait"] += env.now - submitted
        yield env.timeout(duration)
        yield pool.put(count)

    def source(rows: Iterable[TraceRow]) -> Generator[Any, Any, None]:
        for at, share, itype, count, duration, _, _, _ in rows:
            if at > env.now:
                yield env.timeout(at - env.now)
            totals["jobs"] += 1
            env.process(job(pools[f"{share}/{itype}"], count, duration, at))

    start, cpu = time.perf_counter(), time.process_time()
    env.process(source(trace_rows(trace)))
    env.run()
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "cpu": time.process_time() - cpu,
        "jobs": totals["jobs"],
        "peak_mib": peak_mib(),
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
    parser = argparse.ArgumentParser(description="Benchmark quotactl simulate against SimPy.")
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--run", choices=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        measured = (
            run_simpy(args.trace) if args.run == "simpy" else run_quotactl(args.trace, args.run)
        )
        print(json.dumps(measured))
        return
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.csv"
        start = time.perf_counter()
        with trace.open("w") as out:
            write_trace(generate_trace([bench_queue()], args.jobs, args.seed), out)
        took = time.perf_counter() - start
        size = trace.stat().st_size / 2**20
        print(f"trace: {args.jobs:,} jobs, 20 shares x 3 types, {size:.0f} MiB ({took:.1f} s)")
        results = {kind: child(kind, trace) for kind in RUNS}
    print(f"{'run':<18}{'seconds':>9}{'cpu s':>8}{'jobs/s':>11}{'peak MiB':>10}")
    for kind, r in results.items():
        rate = r["jobs"] / r["seconds"]
        row = f"{kind:<18}{r['seconds']:>9.2f}{r['cpu']:>8.2f}{rate:>11,.0f}{r['peak_mib']:>10.0f}"
        print(row)
    print("(cpu s: the simulating process only; the parse worker runs on the other core)")
    ours, simpy_run = results["quotactl"], results["simpy"]
    speedup = (ours["jobs"] / ours["seconds"]) / (simpy_run["jobs"] / simpy_run["seconds"])
    print(
        f"quotactl: {speedup:.2f}x SimPy's jobs/s; utilisation {ours['utilisation']:.0%},"
        f" {ours['preemptions']:,.0f} preemptions"
    )
    per_million = ours["seconds"] * 1_000_000 / ours["jobs"]
    checks = {
        f"1M jobs under 10 s ({per_million:.1f} s)": per_million < 10,
        f"at least 1.5x SimPy's jobs/s ({speedup:.2f}x)": speedup >= 1.5,
        f"peak memory under 1 GiB ({ours['peak_mib']:.0f} MiB)": ours["peak_mib"] < 1024,
    }
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {name}")


if __name__ == "__main__":
    main()
