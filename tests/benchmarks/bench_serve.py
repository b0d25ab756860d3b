"""Per-call latency of stock boto3 over ``quotactl local serve`` (keep-alive connections).

    python tests/benchmarks/bench_serve.py [--jobs 0,2000,10000] [--calls 300]

For each job count: a fresh state file with one queue, five shares and that many unfinished
service jobs (submitted in-process beforehand), then a ``local serve`` subprocess and one
boto3 client (botocore's default pool: one kept-alive connection). Prints the median and p99
of ListQuotaShares, DescribeServiceJob and SubmitServiceJob. Targets at 10,000 unfinished
jobs: median reads under 2 ms, submits under 5 ms. Figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served, make_queue, payload

TARGET_READ_MS = 2.0
TARGET_SUBMIT_MS = 5.0
SHARES = 5


def submit_args(i: int) -> dict[str, Any]:
    return {
        "jobName": f"seed{i}",
        "jobQueue": "bench",
        "serviceJobType": "SAGEMAKER_TRAINING",
        "serviceRequestPayload": payload(max_runtime=86_400),
        "quotaShareName": f"s{i % SHARES}",
        "tags": {"quotactl:duration": "1d"},
    }


def seed(state: Path, jobs: int) -> None:
    """The queue and ``jobs`` unfinished jobs, written in-process (no HTTP in the way)."""
    target = Target("local", state)
    with Emulator(state) as emulator:
        batch = client(
            target,
            session=make_session(target, emulator=emulator),
            retries={"total_max_attempts": 1},
        )
        make_queue(batch, "bench", shares={f"s{i}": {} for i in range(SHARES)})
        batch.close()
        started = time.perf_counter()
        for i in range(jobs):
            emulator.call("SubmitServiceJob", submit_args(i))
            if i and i % 1000 == 0:
                rate = i / (time.perf_counter() - started)
                print(f"  seeded {i} jobs ({rate:.0f}/s)", file=sys.stderr)


def timed(call: Any, count: int) -> list[float]:
    for _ in range(10):  # warm-up: connection, botocore's caches
        call()
    out = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def p99(samples: list[float]) -> float:
    return sorted(samples)[max(0, int(len(samples) * 0.99) - 1)]


def run(jobs: int, calls: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "bench.db"
        seed(state, jobs)
        server = Served(state)
        http = http_client(server.url)
        try:
            job_id = http.submit_service_job(**submit_args(jobs))["jobId"]
            n = [jobs + 1]

            def submit() -> None:
                n[0] += 1
                http.submit_service_job(**submit_args(n[0]))

            cases = {
                "ListQuotaShares": lambda: http.list_quota_shares(jobQueue="bench"),
                "DescribeServiceJob": lambda: http.describe_service_job(jobId=job_id),
                "SubmitServiceJob": submit,
            }
            for name, call in cases.items():
                samples = timed(call, calls)
                target = TARGET_SUBMIT_MS if name == "SubmitServiceJob" else TARGET_READ_MS
                print(
                    f"{jobs:>6} jobs  {name:<19} median {statistics.median(samples):7.2f} ms  "
                    f"p99 {p99(samples):7.2f} ms  (target median < {target:g} ms at 10,000)"
                )
        finally:
            http.close()
            server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--jobs", default="0,2000,10000", help="unfinished job counts, comma-separated"
    )
    parser.add_argument("--calls", type=int, default=300, help="timed calls per operation")
    args = parser.parse_args(argv)
    with open("/proc/loadavg") as loadavg:
        print(f"load average: {' '.join(loadavg.read().split()[:3])}")
    for jobs in (int(j) for j in args.jobs.split(",")):
        run(jobs, args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
