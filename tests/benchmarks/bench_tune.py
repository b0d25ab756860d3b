"""Benchmark of ``quotactl tune``: a script, not a test (pytest does not collect it).

    python tests/benchmarks/bench_tune.py                       # 100,000 jobs, 100 candidates
    python tests/benchmarks/bench_tune.py --jobs 20000 --budget 40

It writes a synthetic trace of the demo configuration (``configs/demo``: one queue, four
teams over two instance types, its rules) and runs the same search three ways, each with the
same seed:

* ``one-by-one``: every candidate replayed in this process, one after another;
* ``pool``: a local process pool of 2 workers (``--workers 2``);
* ``dask``: a ``distributed.LocalCluster`` of 2 worker processes (``--executor dask://...``).

It prints the wall time, the candidates per second, the ratio to one-by-one, and checks that
the three searches proposed and found the same (it never asserts a speed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.api import generate_trace, load
from quotactl.api.tuning import tune
from quotactl.core.tune import Settings

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--skip", action="append", default=[], help="one-by-one, pool or dask")
    args = parser.parse_args()
    desired = load([ROOT / "configs" / "demo"]).desired
    settings = Settings(budget=args.budget, seed=1)
    with tempfile.TemporaryDirectory() as folder:
        trace = Path(folder) / "trace.csv"
        generate_trace(desired, args.jobs, trace, seed=1)
        print(f"trace: {args.jobs:,} jobs; budget {args.budget} candidates; seed 1")
        runs: dict[str, tuple[float, list[str]]] = {}
        for name in ("one-by-one", "pool", "dask"):
            if name in args.skip:
                continue
            started = time.perf_counter()
            if name == "dask":
                from distributed import LocalCluster

                with LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                ) as cluster:
                    address = cluster.scheduler_address.replace("tcp://", "dask://")
                    started = time.perf_counter()  # the cluster's start-up is not the search's
                    result = tune(desired, trace, settings, executor=address)
            else:
                workers = 1 if name == "one-by-one" else 2
                result = tune(desired, trace, settings, workers=workers)
            wall = time.perf_counter() - started
            runs[name] = (wall, [t.fingerprint for t in result.trials])
            n = len(result.trials)
            best = result.best
            found = result.objective.shown(best.score if best else result.current.score)
            ratio = ""
            if "one-by-one" in runs and name != "one-by-one":
                ratio = f", {runs['one-by-one'][0] / wall:.2f}x one-by-one"
            print(
                f"{name:>10}: {n} candidates in {wall:7.1f} s = {n / wall:5.2f} candidates/s"
                f"{ratio}; best worst-p95 {found}"
            )
        fingerprints = {tuple(f) for _, f in runs.values()}
        print("same trials on every executor:", len(fingerprints) == 1)


if __name__ == "__main__":
    main()
