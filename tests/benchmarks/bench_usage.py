"""``quotactl usage`` over a 100,000-attempt ledger.

    python tests/benchmarks/bench_usage.py [--attempts 100000] [--every day] [--settings N]

Writes a synthetic ledger of a month on one queue of 20 shares (10 lend_and_borrow, 5 lend, 5
reserve, 8 p5 each, 160 in the environment): jobs of 1-4 instances arriving over 30 days,
running 10 minutes to 6 hours after a wait, one in ten preempted once and run again. Then
runs the real CLI in process, ``usage --history FILE -o json`` over the 30 days (with
``--every day`` when asked), three times, and prints the wall time of each, with the time of
the computation alone (the ledger already read). A ledger needs no API call: the call count is
0. Target: under 2 s. Wall and CPU time are printed with the load average (on a shared machine
the CPU time is the steadier figure). ``--settings N`` adds N settings records beside the
ledger (``ledger.csv.settings.jsonl``, as ``history`` keeps them: a share's limit and
strategy changed at a random moment of the month). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl.cli.app import run
from quotactl.config import load_config
from quotactl.core.history.ledger import Attempt, AttemptOutcome, read_ledger, write_ledger
from quotactl.core.history.report import Every
from quotactl.core.history.usage import usage_of

TARGET_S = 2.0
P5 = "ml.p5.48xlarge"
START = datetime(2026, 11, 1, tzinfo=UTC)
DAYS = 30


def config(root: Path) -> Path:
    lines = [
        "platform: {name: bench, region: us-east-1}",
        "environments: [{name: pool, capacity: {ml.p5.48xlarge: 160}}]",
        "queues: [{name: training, environment: pool}]",
        "teams:",
    ]
    for i in range(20):
        sharing = "lend_and_borrow" if i < 10 else "lend" if i < 15 else "reserve"
        lines += [
            f"  - name: t{i:02d}",
            "    shares:",
            f"      - {{name: s{i:02d}, queue: training, capacity: {{{P5}: 8}},"
            f" sharing: {sharing}}}",
        ]
    path = root / "stack.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def ledger(count: int, rng: random.Random) -> list[Attempt]:
    rows: list[Attempt] = []
    job = 0
    while len(rows) < count:
        job += 1
        share = f"s{rng.randrange(20):02d}"
        submitted = START + timedelta(seconds=rng.uniform(0, DAYS * 86_400))
        n = rng.choice([1, 1, 2, 4])
        start = submitted + timedelta(seconds=rng.expovariate(1 / 900))
        run = timedelta(seconds=rng.uniform(600, 6 * 3600))
        common = {
            "job_id": f"job-{job:07d}",
            "name": f"j{job}",
            "queue": "training",
            "share": share,
            "team": f"t{share[1:]}",
            "instance_type": P5,
            "count": n,
            "priority": rng.randrange(4),
            "submitted_at": submitted,
        }
        attempt = 1
        if rng.random() < 0.1:
            stop = start + run / 3
            rows.append(
                Attempt(
                    attempt=attempt,
                    started_at=start,
                    stopped_at=stop,
                    outcome=AttemptOutcome.PREEMPTED,
                    **common,  # type: ignore[arg-type]
                )
            )
            attempt += 1
            start = stop + timedelta(seconds=rng.expovariate(1 / 1800))
        rows.append(
            Attempt(
                attempt=attempt,
                started_at=start,
                stopped_at=start + run,
                outcome=AttemptOutcome.SUCCEEDED,
                **common,  # type: ignore[arg-type]
            )
        )
    return rows[:count]


def write_settings(ledger_path: Path, count: int, rng: random.Random) -> None:
    """``count`` history records: share, moment, limit and strategy drawn at random."""
    import json

    from quotactl.core.history.settings import log_record

    seconds = DAYS * 86_400
    lines = []
    for at in sorted(rng.uniform(0, seconds) for _ in range(count)):
        i = rng.randrange(20)
        fields = {
            "capacity": {P5: rng.randint(4, 12)},
            "sharing": rng.choice(["reserve", "lend", "lend_and_borrow"]),
            "borrow_limit": None,
            "in_share_preemption": False,
            "enabled": True,
        }
        moment = START + timedelta(seconds=at)
        record = log_record(
            moment,
            "history",
            "observe-share",
            f"share.training/s{i:02d}",
            None,
            fields,
            "",
            "observed",
        )
        lines.append(json.dumps(record) + "\n")
    ledger_path.with_name(ledger_path.name + ".settings.jsonl").write_text("".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--every", choices=["day", "week"])
    parser.add_argument("--settings", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        stack = config(root)
        path = root / "ledger.csv"
        write_ledger(path, ledger(args.attempts, random.Random(7)))
        print(f"ledger: {args.attempts:,} attempts, {path.stat().st_size / 2**20:.1f} MiB")
        if args.settings:
            write_settings(path, args.settings, random.Random(11))
            print(f"settings: {args.settings:,} records beside the ledger")
        window = ["--from", "2026-11-01T00:00:00Z", "--to", "2026-12-01T00:00:00Z"]
        every = ["--every", args.every] if args.every else []
        os.environ.setdefault("COLUMNS", "200")
        for _ in range(3):
            out, err = io.StringIO(), io.StringIO()
            began, cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run(
                    ["usage", str(stack), "--history", str(path), *window, *every, "-o", "json"]
                )
            took, cpu = time.perf_counter() - began, time.process_time() - cpu
            assert code == 0, err.getvalue()
            print(
                f"usage --history -o json: {took:.2f} s wall, {cpu:.2f} s CPU"
                f" (target < {TARGET_S:g} s), 0 API calls"
            )
        rows = read_ledger(path)
        shares = load_config([stack]).desired.shares
        began, cpu = time.perf_counter(), time.process_time()
        usage_of(
            rows,
            shares,
            start=START,
            end=START + timedelta(days=DAYS),
            every=Every(args.every) if args.every else None,
        )
        took, cpu = time.perf_counter() - began, time.process_time() - cpu
        print(f"the computation alone (ledger read): {took:.2f} s wall, {cpu:.2f} s CPU")
        print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
