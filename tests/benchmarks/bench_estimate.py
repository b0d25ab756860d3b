"""`quotactl jobs --eta` on a big queue: 20 shares, 10,000 jobs in mixed states.

Run: python tests/benchmarks/bench_estimate.py [jobs]

The queue is bench_status.py's (p5 160; 10 lend_and_borrow, 5 lend and 5 reserve shares of 8
each), built through the Batch API on the embedded emulator with the default timing model.
Then:

1. the real CLI runs `jobs --eta -o json` (in process): the document's `estimate` gives the
   computation time after the reads (target: under 1 s) and the API calls of the reads;
2. the estimate alone on the queue as read, three ways: every duration known (one run), run
   times drawn from a history (Monte Carlo, the default number of runs), and time limits.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

import quotactl
from quotactl.api.estimates import read_for_estimates
from quotactl.cli.app import run
from quotactl.core.estimate import ShareHistory, estimate
from tests.benchmarks.bench_status import build


def jobs_eta(state: Path) -> tuple[float, dict[str, object]]:
    """Wall time of `quotactl jobs --eta -o json` and its document's `estimate`."""
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["--state", str(state), "-q", "jobs", "--eta", "-o", "json"])
    took = time.perf_counter() - start
    assert code == 0, err.getvalue()
    document = json.loads(out.getvalue())
    waiting = sum(1 for j in document["jobs"] if j["eta"] is not None)
    print(f"  {waiting} jobs with an eta")
    return took, document["estimate"]


def main(jobs: int) -> None:
    os.environ.pop("QUOTACTL_EMULATOR_TIMING", None)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "bench.db"
        start = time.perf_counter()
        counts = build(state, jobs)
        print(f"built {jobs} jobs on 20 shares in {time.perf_counter() - start:.1f} s: {counts}")
        print(f"load average: {os.getloadavg()[0]:.2f}")
        took, cost = jobs_eta(state)
        print(
            f"jobs --eta -o json: {took:.2f} s wall; estimate {cost['computation_seconds']} s "
            f"of computation in {cost['runs']} run(s); API calls {cost['api_calls']}"
        )
        with quotactl.connect("local", state=state) as account:
            (live,) = read_for_estimates(account, ["bench"])
        unknown = replace(live, jobs=tuple(replace(j, duration=None) for j in live.jobs))
        rng = random.Random(1)
        history = ShareHistory.of(
            (s.name, rng.choice([600.0, 1800.0, 7200.0, 21600.0]) * rng.uniform(0.8, 1.2))
            for s in live.shares
            for _ in range(200)
        )
        for label, queue, drawn in (
            ("every duration known", live, None),
            ("drawn from a history", unknown, history),
            ("time limits", unknown, None),
        ):
            best = min((estimate(queue, history=drawn) for _ in range(3)), key=lambda e: e.seconds)
            print(
                f"estimate, {label}: {best.seconds:.3f} s of computation, {best.runs} run(s), "
                f"{len(best.etas)} jobs estimated (best of 3)"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
