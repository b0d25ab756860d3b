"""Many clients at once against ``quotactl local serve``: throughput, latency, errors, and
whether every acknowledged write survived exactly once.

    python tests/benchmarks/bench_serve_load.py [--clients 64] [--duration 60] [--processes 4]

CLIENTS stock boto3 clients (threads spread over PROCESSES processes, retries off so every
failure is counted) run a mixed load for DURATION seconds: DescribeServiceJob 35%,
ListQuotaShares 25%, ListServiceJobs 10%, SubmitServiceJob 20%, CreateSchedulingPolicy 5%,
TagResource 5%. Then the server stops and the state file is checked: ``PRAGMA
integrity_check``, every acknowledged submit and policy present exactly once. Prints
requests/s, p50/p99 per operation and errors by code; figures only, nothing asserted
(``--duration 5`` makes a smoke run).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served, make_queue, payload

SHARES = 4
MIX = [
    ("DescribeServiceJob", 35),
    ("ListQuotaShares", 25),
    ("ListServiceJobs", 10),
    ("SubmitServiceJob", 20),
    ("CreateSchedulingPolicy", 5),
    ("TagResource", 5),
]


def submit_args(name: str) -> dict[str, Any]:
    return {
        "jobName": name,
        "jobQueue": "load",
        "serviceJobType": "SAGEMAKER_TRAINING",
        "serviceRequestPayload": payload(max_runtime=86_400),
        "quotaShareName": f"s{hash(name) % SHARES}",
        "tags": {"quotactl:duration": "1d"},
        "clientToken": name,
    }


def one_client(
    url: str, seed_job: str, queue_arn: str, deadline: float, seed: int, out: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    batch = out["client"]
    ops, weights = zip(*MIX, strict=True)
    samples: list[tuple[str, float]] = []
    errors: collections.Counter[str] = collections.Counter()
    acked_jobs: list[str] = []
    acked_policies: list[str] = []
    job_ids = [seed_job]
    while time.time() < deadline:
        op = rng.choices(ops, weights)[0]
        name = f"{op[:3].lower()}-{uuid.uuid4().hex[:12]}"
        start = time.perf_counter()
        try:
            if op == "DescribeServiceJob":
                batch.describe_service_job(jobId=rng.choice(job_ids))
            elif op == "ListQuotaShares":
                batch.list_quota_shares(jobQueue="load")
            elif op == "ListServiceJobs":
                batch.list_service_jobs(jobQueue="load", jobStatus="RUNNABLE", maxResults=50)
            elif op == "SubmitServiceJob":
                job_ids.append(batch.submit_service_job(**submit_args(name))["jobId"])
                acked_jobs.append(name)
            elif op == "CreateSchedulingPolicy":
                batch.create_scheduling_policy(name=name)
                acked_policies.append(name)
            else:
                batch.tag_resource(resourceArn=queue_arn, tags={f"k{rng.randrange(40)}": name})
        except Exception as exc:  # counted, never fatal: the figure is the point
            code = getattr(exc, "response", {}).get("Error", {}).get("Code") or type(exc).__name__
            errors[str(code)] += 1
            out.setdefault("messages", {}).setdefault(str(code), str(exc)[:300])
            continue
        samples.append((op, (time.perf_counter() - start) * 1000))
    out.update(samples=samples, errors=errors, jobs=acked_jobs, policies=acked_policies)


def client_process(
    url: str, seed_job: str, queue_arn: str, threads: int, ready: Any, duration: float
) -> dict[str, Any]:
    outs: list[dict[str, Any]] = [{"client": http_client(url)} for _ in range(threads)]
    for out in outs:  # connected before the clock starts
        out["client"].list_quota_shares(jobQueue="load")
    ready.wait()
    start_at = time.time()
    deadline = start_at + duration
    workers = [
        threading.Thread(
            target=one_client,
            args=(url, seed_job, queue_arn, deadline, hash((start_at, i, id(o))), o),
        )
        for i, o in enumerate(outs)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    merged: dict[str, Any] = {
        "samples": [],
        "errors": collections.Counter(),
        "jobs": [],
        "policies": [],
    }
    for o in outs:
        o.pop("client").close()
        merged["samples"] += o.get("samples", [])
        merged["errors"] += o.get("errors", collections.Counter())
        merged["jobs"] += o.get("jobs", [])
        merged["policies"] += o.get("policies", [])
        merged.setdefault("messages", {}).update(o.get("messages", {}))
    return merged


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def check_state(state: Path, jobs: list[str], policies: list[str]) -> None:
    with sqlite3.connect(state) as db:
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check")]
    db.close()
    print(f"integrity_check: {', '.join(integrity)}")
    target = Target("local", state)
    with Emulator(state) as emulator:
        batch = client(target, session=make_session(target, emulator=emulator))
        names: collections.Counter[str] = collections.Counter()
        for share in range(SHARES):  # a share filter lists every status, in submit order
            pages = batch.get_paginator("list_service_jobs").paginate(
                jobQueue="load", filters=[{"name": "QUOTA_SHARE_NAME", "values": [f"s{share}"]}]
            )
            for page in pages:
                names.update(j["jobName"] for j in page["jobSummaryList"])
        listed = {
            p["arn"].rsplit("/", 1)[1]
            for page in batch.get_paginator("list_scheduling_policies").paginate()
            for p in page["schedulingPolicies"]
        }
        batch.close()
    missing = [n for n in jobs if names[n] == 0]
    doubled = [n for n in jobs if names[n] > 1]
    print(
        f"acknowledged submits: {len(jobs)}, missing {len(missing)}, present twice or more "
        f"{len(doubled)}; acknowledged policies: {len(policies)}, missing "
        f"{len(set(policies) - listed)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    args = parser.parse_args(argv)
    with open("/proc/loadavg") as loadavg:
        print(f"load average: {' '.join(loadavg.read().split()[:3])}")
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "load.db"
        server = Served(state)
        try:
            http = http_client(server.url)
            arns = make_queue(http, "load", shares={f"s{i}": {} for i in range(SHARES)})
            seed_job = http.submit_service_job(**submit_args("seed"))["jobId"]
            http.close()
            per = [args.clients // args.processes] * args.processes
            per[0] += args.clients - sum(per)
            per = [n for n in per if n]
            with multiprocessing.Manager() as manager, ProcessPoolExecutor(len(per)) as pool:
                ready = manager.Barrier(len(per))
                futures = [
                    pool.submit(
                        client_process,
                        server.url,
                        seed_job,
                        arns["queue"],
                        n,
                        ready,
                        args.duration,
                    )
                    for n in per
                ]
                results = [f.result() for f in futures]
        finally:
            server.close()
        samples = [s for r in results for s in r["samples"]]
        errors: collections.Counter[str] = sum(
            (r["errors"] for r in results), collections.Counter()
        )
        total = len(samples) + sum(errors.values())
        print(
            f"{args.clients} clients, {args.duration:g}s: {total} requests, "
            f"{len(samples) / args.duration:.0f} ok/s, errors {sum(errors.values())} "
            f"{dict(errors) or ''}"
        )
        for code, message in {k: v for r in results for k, v in r["messages"].items()}.items():
            print(f"  first {code}: {message}")
        everything = [ms for _, ms in samples]
        print(
            f"  all                     p50 {percentile(everything, 0.5):8.1f} ms  "
            f"p99 {percentile(everything, 0.99):8.1f} ms"
        )
        for op, _ in MIX:
            values = [ms for o, ms in samples if o == op]
            if values:
                print(
                    f"  {op:<23} p50 {statistics.median(values):8.1f} ms  "
                    f"p99 {percentile(values, 0.99):8.1f} ms  ({len(values)} ok)"
                )
        check_state(
            state,
            [n for r in results for n in r["jobs"]],
            [n for r in results for n in r["policies"]],
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
