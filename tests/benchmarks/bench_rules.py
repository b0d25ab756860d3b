"""What rules cost ``validate`` and ``plan`` of the 1,000-share stack (target: under 50 ms).

The stack is ``bench_startup.large_config`` (50 queues, 20 teams with a share on each). The
rules file holds every static check once, a ``min_capacity`` and a ``max_capacity`` per team
and ``max_disruption``: 44 rules. Measured in this process (the median CPU time of ``--runs``):
loading the config with and without the rules file, judging the static rules, and judging a
no-change plan (static rules and ``max_disruption``); then, as a user sees it, ``quotactl
validate`` and a no-change ``quotactl plan`` in fresh processes with and without the rules.
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
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*
from quotactl.config import load_config
from quotactl.core.plan.policy import judge
from quotactl.core.rules import evaluate_static
from tests.benchmarks.bench_startup import large_config, quotactl_command

if TYPE_CHECKING:
    from collections.abc import Callable

TARGET_MS = 50.0
TEAMS = 20


def rules_file(path: Path) -> Path:
    lines = [
        "rules:",
        "  - {name: fits, level: hard, check: capacity_within_environment}",
        "  - {name: reserve, level: soft, check: max_reserve_fraction, value: 30}",
        "  - {name: borrowing, level: soft, check: max_borrow_limit, value: 100}",
        "  - {name: owners, level: soft, check: required_tags, keys: [owner]}",
        "  - {name: calm, level: soft, check: max_disruption, jobs: 0}",
    ]
    for t in range(TEAMS):
        for check, n in (("min_capacity", 1), ("max_capacity", 50)):
            lines.append(
                f"  - {{name: {check}-{t}, level: soft, check: {check}, team: team{t},"
                f" capacity: {{ml.g5.xlarge: {n}}}}}"
            )
    path.write_text("\n".join(lines) + "\n")
    return path


def median_ms(work: Callable[[], object], runs: int) -> float:
    """Median CPU time of ``work``: on a shared machine, wall time measures the neighbours."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def process_ms(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall and CPU time of ``runs`` fresh processes; each must exit 0."""
    subprocess.run(argv, capture_output=True, env=env, check=False)
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, env=env, check=False)
        times.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        cpu.append(used * 1000)
        assert done.returncode == 0, done.stderr
    return statistics.median(times), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = large_config(root / "configs")
        rules = rules_file(root / "rules.yaml")
        loaded = load_config([config, rules])
        without = median_ms(lambda: load_config([config]), args.runs)
        with_rules = median_ms(lambda: load_config([config, rules]), args.runs)
        chosen = loaded.rules
        static = median_ms(lambda: evaluate_static(chosen, loaded.desired), args.runs)
        from quotactl.core.plan.model import Plan

        empty = Plan(loaded.desired.stack, "us-east-1", "123456789012", (), "sha256:" + "0" * 64)
        judged = median_ms(lambda: judge(empty, loaded.desired, chosen), args.runs)
        shares = len(loaded.desired.shares)
        print(f"{len(chosen)} rules on {shares:,} shares (in process, median CPU of {args.runs})")
        print(f"  load config                 {without:7.1f} ms")
        print(
            f"  load config + rules file    {with_rules:7.1f} ms  (+{with_rules - without:.1f} ms)"
        )
        print(f"  judge the static rules      {static:7.1f} ms")
        print(f"  judge a plan (static + max_disruption) {judged:5.1f} ms")
        added_validate = with_rules - without + static
        added_plan = with_rules - without + judged
        for what, ms in (("validate", added_validate), ("plan", added_plan)):
            verdict = "ok" if ms < TARGET_MS else "OVER TARGET"
            print(f"rules add {ms:.1f} ms to {what} (target {TARGET_MS:.0f} ms): {verdict}")

        quotactl = quotactl_command()
        env = {**os.environ, "QUOTACTL_STATE": str(root / "state.db"), "NO_COLOR": "1"}
        subprocess.run([*quotactl, "-q", "apply", str(config), "--auto-approve"], env=env,
                       capture_output=True, check=True)  # fmt: skip
        print(f"fresh processes (median of {args.runs})")
        for label, argv in (
            ("validate", [*quotactl, "-q", "validate", str(config)]),
            ("validate + rules", [*quotactl, "-q", "validate", str(config), str(rules)]),
            ("plan (no change)", [*quotactl, "-q", "plan", str(config)]),
            ("plan + rules", [*quotactl, "-q", "plan", str(config), str(rules)]),
        ):
            wall, cpu = process_ms(argv, args.runs, env)
            print(f"  quotactl {label:<18} {wall:7.1f} ms  (CPU {cpu:6.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
