"""The emulator's request path in-process: boto3 -> botocore hook -> emulator, per operation.

    python tests/benchmarks/bench_requests.py [--jobs 0 2000 10000] [--calls 200]

For each number of unfinished jobs (one queue, five quota shares of one instance each, so
nearly all of them wait RUNNABLE; submitted through the emulator itself), prints the median
and p99 wall time of ListQuotaShares, DescribeServiceJob, ListServiceJobs (default page),
GetJobQueueSnapshot, SubmitServiceJob and UpdateServiceJob through a real boto3 client. Targets
at 10,000 jobs: reads under 2 ms, a submit under 5 ms (median). Figures only: nothing is
asserted, and a loaded machine shows in them (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from tests.emulator.emulator_support import inprocess_client, make_queue, submit_request

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.emulator import Emulator

SHARES = 5
READ_TARGET_MS, SUBMIT_TARGET_MS = 2.0, 5.0


def timed(call: Callable[[], object], count: int) -> tuple[float, float]:
    """(median, p99) in milliseconds."""
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.99) - 1)]


def seed(emulator: Emulator, count: int) -> None:
    """``count`` jobs through SubmitServiceJob itself."""
    for i in range(count):
        emulator.call("SubmitServiceJob", submit_request(f"seed-{i}", "bench", f"s{i % SHARES}"))


def run(jobs: int, calls: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        emulator, batch = inprocess_client(Path(tmp) / "bench.db")
        make_queue(batch, "bench", shares={f"s{i}": {"limit": 1} for i in range(SHARES)})
        begin = time.perf_counter()
        seed(emulator, jobs)
        seeded = time.perf_counter() - begin
        job = batch.submit_service_job(**submit_request("probe", "bench", "s1"))
        for _ in range(4):  # let it walk to where it waits
            batch.describe_service_job(jobId=job["jobId"])
        numbers = iter(range(10**9))
        priorities = iter(range(10**9))
        cases: dict[str, Callable[[], object]] = {
            "ListQuotaShares": lambda: batch.list_quota_shares(jobQueue="bench"),
            "DescribeServiceJob": lambda: batch.describe_service_job(jobId=job["jobId"]),
            "ListServiceJobs": lambda: batch.list_service_jobs(jobQueue="bench"),
            "GetJobQueueSnapshot": lambda: batch.get_job_queue_snapshot(jobQueue="bench"),
            "SubmitServiceJob": lambda: batch.submit_service_job(
                **submit_request(f"bench-{next(numbers)}", "bench", "s1")
            ),
            "UpdateServiceJob": lambda: batch.update_service_job(
                jobId=job["jobId"], schedulingPriority=next(priorities) % 100
            ),
        }
        results = {name: timed(call, calls) for name, call in cases.items()}
        if jobs:
            results["(seeding, per job)"] = (seeded / jobs * 1000, 0.0)
        batch.close()
        emulator.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[0, 2000, 10_000])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"targets at 10,000 jobs: reads < {READ_TARGET_MS:g}, submit < {SUBMIT_TARGET_MS:g} ms")
    for jobs in args.jobs:
        results = run(jobs, args.calls)
        print(f"{jobs:,} unfinished jobs (median / p99 ms):")
        for name, (median, p99) in results.items():
            print(f"  {name:22s} {median:8.2f} {p99:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
