"""`quotactl jobs` and `quotactl status` as whole commands over `local serve`, beside the AWS CLI.

    python tests/benchmarks/bench_jobs.py [--jobs 10000] [--runs 3] [--state FILE]

Builds bench_status.py's queue (20 shares, 160 p5s, JOBS jobs in waves: most RUNNABLE, some
running, a few finished) in a state file (``--state`` keeps it and reuses it when it
exists), starts ``quotactl local serve`` on it, and runs, each as a fresh process, RUNS
times, in turn (so each command sees the same minutes of the machine):

- ``aws batch list-service-jobs --job-queue bench --job-status RUNNABLE`` (the AWS CLI pages
  through every job, 100 a call: the floor for any client of the same listing);
- a bare botocore script that lists the same jobs, share by share, on one thread (no
  quotactl at all: Python, botocore's client and its 100 pages; on two cores more threads
  only add contention against a local server), the floor for any botocore-based command;
- ``quotactl jobs --status RUNNABLE`` (text; no per-job describe), and the time until its
  first line arrived on the pipe;
- ``quotactl jobs`` (every status);
- ``quotactl status`` and ``status -o json``.

Prints the median wall time of each, its CPU time (user and system: on a busy machine the
steadier figure) and the API calls quotactl made (``--debug``). Targets:
``jobs`` under 1 s, ``status`` under 0.5 s. Figures only, nothing is asserted.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from tests.benchmarks.bench_status import served, served_arguments

AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_PAGER": "",
}


BOTOCORE_ALONE = """
import sys
import botocore.session

batch = botocore.session.get_session().create_client("batch", endpoint_url=sys.argv[1])
shares = batch.list_quota_shares(jobQueue="bench")["quotaShares"]
jobs = 0
for share in shares:
    pages = batch.get_paginator("list_service_jobs").paginate(
        jobQueue="bench",
        jobStatus="RUNNABLE",
        filters=[{"name": "QUOTA_SHARE_NAME", "values": [share["quotaShareName"]]}],
    )
    jobs += sum(len(page["jobSummaryList"]) for page in pages)
print(jobs)
"""
"""The listing alone through botocore, as a script: the floor under any botocore command."""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str, float]:
    """Wall seconds, seconds to the first line of stdout, stderr and CPU seconds (user and
    system) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    first_at = time.perf_counter() - start
    rest, err = process.communicate()
    took = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"{command} failed: {err}")
    del first, rest
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return took, first_at, err, cpu


def main(argv: list[str] | None = None) -> int:
    args = served_arguments(__doc__, argv, runs=3)
    with served(args.state, args.jobs) as url:
        env = {**os.environ, **AWS_ENV}
        env.pop("QUOTACTL_EMULATOR_FAULTS", None)
        q = [sys.executable, "-m", "quotactl", "--endpoint-url", url, "--debug"]
        cases = {
            "aws batch list-service-jobs RUNNABLE": [
                "aws",
                "batch",
                "list-service-jobs",
                "--endpoint-url",
                url,
                "--job-queue",
                "bench",
                "--job-status",
                "RUNNABLE",
            ],
            "botocore alone, RUNNABLE, one thread": [
                sys.executable,
                "-c",
                BOTOCORE_ALONE,
                url,
            ],
            "quotactl jobs --status RUNNABLE": [*q, "jobs", "--status", "RUNNABLE"],
            "quotactl jobs": [*q, "jobs"],
            "quotactl status": [*q, "status"],
            "quotactl status -o json": [*q, "status", "-o", "json"],
        }
        runs: dict[str, list[tuple[float, float, str, float]]] = {n: [] for n in cases}
        for _ in range(args.runs):
            for name, command in cases.items():
                runs[name].append(timed(command, env))
        for name, found in runs.items():
            walls = [r[0] for r in found]
            firsts = [r[1] for r in found]
            calls = next(
                (ln.split(": ", 1)[1] for ln in found[0][2].splitlines() if "API calls" in ln),
                "",
            )
            cpu = statistics.median(r[3] for r in found)
            print(
                f"{name:<38} median {statistics.median(walls):5.2f} s "
                f"(all {', '.join(f'{w:.2f}' for w in walls)}); first line "
                f"{statistics.median(firsts):5.2f} s; CPU {cpu:.2f} s"
                + (f"; {calls}" if calls else "")
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
