"""Apply and re-plan a large stack on the emulator with AWS-like latency.

    python tests/benchmarks/bench_apply.py [--queues 50] [--shares 20] [--latency-ms 20]
    python tests/benchmarks/bench_apply.py --no-latency   # the emulator's own speed

Builds a config of QUEUES queues (one environment and implied policy each) with SHARES
quota shares per queue, applies it to an empty emulated account whose every request takes
LATENCY_MS of wall time, then plans again (no changes). Prints wall time and the API calls
made by operation for both. Targets at the defaults (1,000 shares, 20 ms): no-change plan
under 1 s, apply under 10 s (the same calls made one after another would take over 20 s).
The no-change plan is timed three times: in this process (reading live state and comparing,
the config already loaded); as the ``quotactl plan`` command a user runs (a fresh process:
start-up and config loading included) on the embedded emulator, over the same state file and
latency (the emulator answering in the command's own process); and as that command over
``quotactl local serve --faults latency_ms=LATENCY_MS`` (the answers computed in another
process, signed requests over HTTP: what a command against AWS does).
With ``--no-latency`` (no injected latency: what the in-process emulator itself costs) the
apply target is 3 s. Figures are printed with the load average; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from quotactl.aws.backend import AwsBackend
from quotactl.aws.session import Target, client
from quotactl.config import load_config
from quotactl.core.apply.executor import apply
from quotactl.core.plan.diff import make_plan

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*
from tests.benchmarks.bench_startup import quotactl_command
from tests.emulator.emulator_support import Served

PLAN_TARGET_S = 1.0
APPLY_TARGET_S = 10.0
APPLY_NO_LATENCY_TARGET_S = 3.0


def write_config(root: Path, queues: int, shares: int) -> Path:
    """One platform file and one file per team."""
    config = root / "configs"
    (config / "teams").mkdir(parents=True)
    lines = ["platform: {name: bench, region: us-east-1}", "environments:"]
    lines += [f"  - {{name: env{q}, capacity: {{ml.g5.xlarge: {shares}}}}}" for q in range(queues)]
    lines.append("queues:")
    lines += [f"  - {{name: queue{q}, environment: env{q}}}" for q in range(queues)]
    (config / "platform.yaml").write_text("\n".join(lines) + "\n")
    for s in range(shares):  # team<s> has one share on every queue
        team = [f"teams:\n  - name: team{s}\n    shares:"]
        team += [
            f"      - {{queue: queue{q}, capacity: {{ml.g5.xlarge: 1}}, sharing: lend}}"
            for q in range(queues)
        ]
        (config / "teams" / f"team{s}.yaml").write_text("\n".join(team) + "\n")
    return config


def calls_line(backend: AwsBackend) -> str:
    total = sum(backend.calls.values())
    parts = ", ".join(f"{op} {n}" for op, n in sorted(backend.calls.items()))
    return f"{total} calls ({parts})"


def sequential(backend: AwsBackend, args: argparse.Namespace) -> float:
    return float(sum(backend.calls.values()) * args.latency_ms / 1000)


def plan_command(
    state: Path, config: Path, args: argparse.Namespace, endpoint: str | None = None
) -> float | None:
    """Median wall time of ``quotactl plan`` in fresh processes (on the embedded emulator, or
    over ``endpoint``); None if one found changes."""
    where = ["--endpoint-url", endpoint] if endpoint else ["--state", str(state)]
    argv = [*quotactl_command(), *where, "plan", str(config), "-q"]
    environ = {**os.environ, "QUOTACTL_EMULATOR_FAULTS": f"latency_ms={args.latency_ms:g}"}
    if endpoint:
        environ.pop("QUOTACTL_EMULATOR_FAULTS")  # the server injects them
        environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench")
    times, cpus = [], []
    for _ in range(args.plans):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        begin = time.perf_counter()
        done = subprocess.run([*argv, "--detailed-exitcode"], env=environ, capture_output=True)
        times.append(time.perf_counter() - begin)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            tail = done.stderr[-500:].decode(errors="replace")
            print(f"quotactl plan exited {done.returncode}: {tail}", file=sys.stderr)
            return None
    median = statistics.median(times)
    runs = ", ".join(f"{t:.2f}" for t in times)
    over = "over `local serve`" if endpoint else "on the embedded emulator"
    print(
        f"`quotactl plan` as a command {over}, start-up and config loading included: "
        f"{median:.2f}s (CPU {statistics.median(cpus):.2f}s)"
    )
    print(f"  median of {len(times)} fresh processes ({runs} s)")
    return median


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queues", type=int, default=50)
    parser.add_argument("--shares", type=int, default=20)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--no-latency", action="store_true", help="same as --latency-ms 0")
    parser.add_argument("--plans", type=int, default=3, help="no-change plans (median taken)")
    args = parser.parse_args(argv)
    if args.no_latency:
        args.latency_ms = 0.0
    apply_target = APPLY_NO_LATENCY_TARGET_S if args.latency_ms == 0 else APPLY_TARGET_S
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        desired = load_config([write_config(root, args.queues, args.shares)]).desired
        target = Target("local", root / "emulator.db", faults=f"latency_ms={args.latency_ms:g}")

        backend = AwsBackend(client(target))
        begin = time.perf_counter()
        plan = make_plan(desired, backend)
        result = apply(plan, backend)
        apply_s = time.perf_counter() - begin
        if not result.ok:
            print(f"apply failed: {result.failed[:3]}", file=sys.stderr)
            return 1
        print(
            f"apply from empty: {len(plan.changes)} changes in {apply_s:.2f}s "
            f"(target < {apply_target:g}s): {calls_line(backend)}"
        )
        print(f"  the same calls one after another: at least {sequential(backend, args):.1f}s")

        times, empty = [], True
        for _ in range(args.plans):
            backend = AwsBackend(client(target))
            begin, cpu = time.perf_counter(), time.process_time()
            again = make_plan(desired, backend)
            times.append(time.perf_counter() - begin)
            empty = empty and again.empty
            print(
                f"no-change plan: {len(again.changes)} changes in {times[-1]:.2f}s "
                f"(CPU {time.process_time() - cpu:.2f}s; target < {PLAN_TARGET_S:g}s): "
                f"{calls_line(backend)}"
            )
        plan_s = statistics.median(times)
        print(f"  median of {len(times)}: {plan_s:.2f}s")
        print(f"  the same calls one after another: at least {sequential(backend, args):.1f}s")
        command_s = plan_command(root / "emulator.db", root / "configs", args)
        if command_s is None:
            return 1
        server = Served(root / "emulator.db", "--faults", f"latency_ms={args.latency_ms:g}")
        try:
            if plan_command(root / "emulator.db", root / "configs", args, server.url) is None:
                return 1
        finally:
            server.close()
        ok = empty and plan_s < PLAN_TARGET_S and apply_s < apply_target
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
