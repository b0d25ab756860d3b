"""Benchmark of ``simulate --report``: a script, not a test (pytest does not collect it).

    python tests/benchmarks/bench_report.py                 # 1,000,000 jobs (from the repo root)
    python tests/benchmarks/bench_report.py --jobs 100000
    python tests/benchmarks/bench_report.py --save /tmp/runs.pickle   # replay once, keep it
    python tests/benchmarks/bench_report.py --load /tmp/runs.pickle   # time the report alone

It writes the synthetic trace of ``bench_simulate.py`` (one queue of 20 quota shares over 3
instance types), then, as ``simulate --baseline reserve --report`` runs it, replays it against
the queue and against every share RESERVE, each side once without and once with the timeline
recorder, and builds the HTML report. It prints the replay times, what recording added, the
time to build the report (beyond the simulation) and the report's size. Times are wall time
and, in brackets, this process's CPU time, which moves less with a busy machine's load.

A million-job replay takes minutes, so ``--save FILE`` replays each side once, with the
recorder only, and keeps both results in FILE (a pickle); ``--load FILE`` then times the
report builds alone on them, as often as one likes (``--repeat N`` builds each N times and
prints the fastest).

Targets (issue #22): a million-job report under 2 MB, built in under 2 s beyond the
simulation itself.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import (
    Replay,
    Side,
    compare,
    generate_trace,
    simulate,
    summarise,
    write_trace,
)
from quotactl.core.simulate.reader import trace_rows
from quotactl.render.report.whatif import comparison_html, simulation_html
from tests.benchmarks.bench_simulate import bench_queue

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.engine import QueueModel
    from quotactl.core.simulate import SimulationResult


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark simulate --report.")
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save", type=Path, help="replay once with the recorder, keep it here")
    parser.add_argument("--load", type=Path, help="build the reports of results kept by --save")
    parser.add_argument("--repeat", type=int, default=1, help="builds of each report")
    args = parser.parse_args()
    queue = bench_queue()
    reserve = queue.with_strategy(Strategy.RESERVE)
    if args.load is not None:
        with args.load.open("rb") as kept:
            trace, results = pickle.load(kept)
    else:
        trace, results = _replay(queue, reserve, args.jobs, args.seed, plain=args.save is None)
        if args.save is not None:
            with args.save.open("wb") as kept:
                pickle.dump((trace, results), kept, protocol=pickle.HIGHEST_PROTOCOL)
    comparison = compare(
        Replay(Side("every share RESERVE", (reserve,), "RESERVE"), results["before"]),
        Replay(Side("bench", (queue,)), results["after"]),
    )
    builds: list[tuple[str, Callable[[], str]]] = [
        ("one run", lambda: simulation_html(results["after"], trace=trace, config="bench")),
        ("a comparison", lambda: comparison_html(comparison, trace=trace)),
    ]
    for name, build in builds:
        times = []
        for _ in range(max(1, args.repeat)):
            start, cpu = time.perf_counter(), time.process_time()
            page = build()
            times.append((time.process_time() - cpu, time.perf_counter() - start))
        best_cpu, best = min(times)
        print(
            f"report of {name}: built in {best:.2f} s ({best_cpu:.2f} s),"
            f" {len(page.encode()) / 1e6:.2f} MB, {page.count('<figure>')} charts"
            f" (load average {os.getloadavg()[0]:.1f})"
        )


def _replay(
    queue: QueueModel, reserve: QueueModel, jobs: int, seed: int, *, plain: bool
) -> tuple[str, dict[str, SimulationResult]]:
    """Each side replayed with the recorder (and first without it, when ``plain``)."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.csv"
        with trace.open("w") as out:
            write_trace(generate_trace([queue], jobs, seed), out)
        for name, model in (("after", queue), ("before", reserve)):
            timings = []
            for record in (False, True) if plain else (True,):
                start, cpu = time.perf_counter(), time.process_time()
                run = simulate((model,), trace_rows(trace), str(trace), record=record)
                result = summarise(run)
                timings.append((time.perf_counter() - start, time.process_time() - cpu))
            results[name] = result
            if plain:
                (plain_s, plain_cpu), (recorded, recorded_cpu) = timings
                print(
                    f"replay {name}: {plain_s:.2f} s ({plain_cpu:.2f} s) plain, {recorded:.2f} s"
                    f" ({recorded_cpu:.2f} s) recording:"
                    f" {100 * (recorded - plain_s) / plain_s:+.1f} %"
                    f" ({100 * (recorded_cpu - plain_cpu) / plain_cpu:+.1f} %)"
                )
            else:
                print(f"replay {name}: {timings[0][0]:.2f} s ({timings[0][1]:.2f} s) recording")
    return str(trace), results


if __name__ == "__main__":
    main()
