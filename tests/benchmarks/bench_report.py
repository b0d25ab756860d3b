"""Benchmark of ``simulate --report``: a script, not a test (pytest does not collect it).

    python tests/benchmarks/bench_report.py                 # 1,000,000 jobs (from the repo root)
    python tests/benchmarks/bench_report.py --jobs 100000

It writes the synthetic trace of ``bench_simulate.py`` (one queue of 20 quota shares over 3
instance types), then, as ``simulate --baseline reserve --report`` runs it, replays it against
the queue and against every share RESERVE, each side once without and once with the timeline
recorder, and builds the HTML report. It prints the replay times, what recording added, the
time to build the report (beyond the simulation) and the report's size. Times are wall time
and, in brackets, this process's CPU time, which moves less with a busy machine's load.

Targets (issue #22): a million-job report under 2 MB, built in under 2 s beyond the
simulation itself.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark simulate --report.")
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    queue = bench_queue()
    reserve = queue.with_strategy(Strategy.RESERVE)
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.csv"
        with trace.open("w") as out:
            write_trace(generate_trace([queue], args.jobs, args.seed), out)
        results = {}
        for name, model in (("after", queue), ("before", reserve)):
            timings = []
            for record in (False, True):
                start, cpu = time.perf_counter(), time.process_time()
                run = simulate((model,), trace_rows(trace), str(trace), record=record)
                result = summarise(run)
                timings.append((time.perf_counter() - start, time.process_time() - cpu))
            results[name] = result
            (plain, plain_cpu), (recorded, recorded_cpu) = timings
            print(
                f"replay {name}: {plain:.2f} s ({plain_cpu:.2f} s) plain, {recorded:.2f} s"
                f" ({recorded_cpu:.2f} s) recording: {100 * (recorded - plain) / plain:+.1f} %"
                f" ({100 * (recorded_cpu - plain_cpu) / plain_cpu:+.1f} %)"
            )
        start, cpu = time.perf_counter(), time.process_time()
        page = simulation_html(results["after"], trace=str(trace), config="bench")
        one, one_cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            f"report of one run: built in {one:.2f} s ({one_cpu:.2f} s),"
            f" {len(page.encode()) / 1e6:.2f} MB"
        )
        comparison = compare(
            Replay(Side("every share RESERVE", (reserve,), "RESERVE"), results["before"]),
            Replay(Side("bench", (queue,)), results["after"]),
        )
        start, cpu = time.perf_counter(), time.process_time()
        page = comparison_html(comparison, trace=str(trace))
        both, both_cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            f"report of a comparison: built in {both:.2f} s ({both_cpu:.2f} s),"
            f" {len(page.encode()) / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
