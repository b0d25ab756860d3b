"""`quotactl govern --once` over 20 shares and 10,000 jobs: cycle time and API calls.

Run: python tests/benchmarks/bench_govern.py [jobs] [--no-latency]

The stack (p5 160 in one queue with aging; 20 teams of one share of 8 each, 10 lend_and_borrow
with a daily used-hours budget, 5 lend with a weekend window, 5 reserve) is applied with
quotactl to the embedded emulator at a fixed Friday, then jobs arrive in five waves with the
clock moved on between them, so some have finished, 160 instances are busy and the rest wait.
The clock then moves to Saturday 00:00 UTC (the windows begin). The real CLI runs, in process
with --debug for the call counts: `govern --once --dry-run` (every read, no write), then
`govern --once` (the windows, the budget tags and the aging raises applied), then
`govern --once` again (a cycle with nothing to do), then, the clock 15 minutes on, `govern
--once` (the jobs whose wait crossed an hour since), with no injected latency and with
QUOTACTL_EMULATOR_FAULTS=latency_ms=20 (on a state copied before the first cycle; not with
--no-latency). Figures only, nothing is asserted.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from quotactl import api
from quotactl.aws.session import Target, client, make_session
from quotactl.cli.app import run
from quotactl.emulator import Emulator
from tests.emulator.emulator_support import payload

P5 = "ml.p5.48xlarge"
WAVES = 5
FRIDAY = datetime(2030, 1, 4, 12, 0, tzinfo=UTC)
SATURDAY = datetime(2030, 1, 5, 0, 0, tzinfo=UTC)


def config() -> str:
    lines = [
        "platform: {name: bench, region: us-east-1}",
        f"environments: [{{name: pool, capacity: {{{P5}: 160}}}}]",
        "queues:",
        "  - {name: bench, environment: pool, aging: {after: 1h, every: 1h, step: 1, max: 10}}",
        "teams:",
    ]
    for i in range(20):
        lines.append(f"  - name: t{i:02d}")
        if i < 10:
            lines.append(f"    budget: {{every: day, instance_hours: {{{P5}: 500}}}}")
        sharing = "lend_and_borrow" if i < 10 else "lend" if i < 15 else "reserve"
        lines += [
            "    shares:",
            f"      - queue: bench\n        capacity: {{{P5}: 8}}\n        sharing: {sharing}",
        ]
        if i < 10:
            lines.append("        borrow_limit: 100")
        elif i < 15:
            lines.append(
                f"        schedule: [{{name: weekend, when: {{days: [sat, sun]}}, "
                f"capacity: {{{P5}: 12}}}}]"
            )
    return "\n".join(lines) + "\n"


def build(tmp: Path, jobs: int) -> tuple[Path, Path]:
    state, path = tmp / "bench.db", tmp / "bench.yaml"
    path.write_text(config())
    with Emulator(state) as emulator:
        emulator.advance(FRIDAY.timestamp() - emulator.now())
    with api.connect("local", state=state) as account:
        api.apply(account, api.load([path]).desired, show=lambda p: None, approve=lambda p: None)
    emulator = Emulator(state)
    target = Target("local", state)
    batch = client(target, session=make_session(target, emulator=emulator))
    rng = random.Random(7)
    for wave in range(WAVES):
        for index in range(jobs // WAVES):
            batch.submit_service_job(
                jobName=f"w{wave}-{index}",
                jobQueue="bench",
                serviceJobType="SAGEMAKER_TRAINING",
                serviceRequestPayload=payload(P5, rng.choice([1, 1, 1, 2, 4]), 86_400),
                quotaShareName=f"t{rng.randrange(20):02d}",
                schedulingPriority=rng.randrange(4),
                tags={"quotactl:duration": rng.choice(["10m", "30m", "2h", "6h"])},
            )
        emulator.advance(rng.choice([600.0, 1800.0]))
    emulator.advance(SATURDAY.timestamp() - emulator.now())
    batch.close()
    emulator.close()
    return state, path


def copy(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite state file (its write-ahead log included)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def govern(state: Path, path: Path, *args: str) -> tuple[float, str, str]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["--state", str(state), "-q", "--debug", "govern", str(path), *args])
    took = time.perf_counter() - start
    assert code == 0, err.getvalue()
    calls = next(line for line in err.getvalue().splitlines() if "API calls" in line)
    actions = out.getvalue().count("\n  ~ ")
    return took, calls.split(": ", 1)[1], f"{actions} actions"


def main(jobs: int, latency: bool = True) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        state, path = build(Path(tmp), jobs)
        print(f"built {jobs} jobs on 20 shares in {time.perf_counter() - start:.1f} s")
        print(f"load average: {os.getloadavg()[0]:.2f}")
        pristine = Path(tmp) / "pristine.db"
        copy(state, pristine)
        for faults in (None, "latency_ms=20"):
            copy(pristine, state)
            if faults:
                os.environ["QUOTACTL_EMULATOR_FAULTS"] = faults
            else:
                os.environ.pop("QUOTACTL_EMULATOR_FAULTS", None)
            for label, args in (
                ("--dry-run", ("--dry-run",)),
                ("first", ()),
                ("second", ()),
                ("15 min later", ()),
            ):
                if label == "15 min later":
                    with Emulator(state) as emulator:
                        emulator.advance(900.0)
                took, calls, actions = govern(state, path, *args)
                print(f"faults={faults or 'none'} govern {label}: {took:.2f} s; {actions}; {calls}")
                print(f"load average: {os.getloadavg()[0]:.2f}")
            if not latency:
                break


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, "--no-latency" not in sys.argv)
