"""Wall time of quotactl's start-up paths: median of N fresh processes each.

    python tests/benchmarks/bench_startup.py [--runs N]

Prints one line per command: ``python -c pass`` (the interpreter's own floor),
``quotactl --help`` (target: under 150 ms), ``quotactl validate configs/demo`` and
``quotactl validate`` of a generated stack of 1,000 quota shares (50 queues, 20 teams with a
share on each; block-style YAML as people write it; target: under 300 ms). Runs from the
repository root with the same interpreter, through the installed console script when it sits
beside that interpreter, else ``python -m quotactl``.

quotactl's bytecode is compiled first (``compileall``, into the usual ``__pycache__``), as pip
does when it installs a package: otherwise, with ``PYTHONDONTWRITEBYTECODE`` set, every run
would compile quotactl's sources again (some 60 ms) and the figures would not be what a user
waits for. ``--no-compile`` leaves the bytecode as it is. Each line also gives the median CPU
time of those processes, steadier than wall time on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
HELP_TARGET_MS = 150.0
VALIDATE_TARGET_MS = 300.0


def quotactl_command() -> list[str]:
    """The installed ``quotactl`` script beside this interpreter, else ``python -m quotactl``."""
    script = shutil.which("quotactl", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "quotactl"]


def large_config(root: Path, queues: int = 50, teams: int = 20) -> Path:
    """``queues x teams`` quota shares: one platform file and one file per team."""
    (root / "teams").mkdir(parents=True)
    lines = ["platform:", "  name: bench", "  region: us-east-1", "environments:"]
    for q in range(queues):
        lines += [f"  - name: env{q}", "    capacity:", f"      ml.g5.xlarge: {teams}"]
    lines.append("queues:")
    lines += [f"  - name: queue{q}\n    environment: env{q}" for q in range(queues)]
    (root / "platform.yaml").write_text("\n".join(lines) + "\n")
    for t in range(teams):
        team = [
            "teams:",
            f"  - name: team{t}",
            "    tags:",
            f"      owner: lead-{t}",
            "    shares:",
        ]
        for q in range(queues):
            team += [
                f"      - queue: queue{q}",
                "        capacity:",
                "          ml.g5.xlarge: 1",
                "        sharing: lend_and_borrow",
                "        borrow_limit: 100",
            ]
        (root / "teams" / f"team{t}.yaml").write_text("\n".join(team) + "\n")
    return root


def median_ms(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall and CPU time of ``runs`` fresh processes; each must exit 0."""
    subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, check=True)  # warm the OS caches
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, check=True)
        times.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        cpu.append(used * 1000)
    return statistics.median(times), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="processes per command")
    parser.add_argument("--no-compile", action="store_true", help="do not compile bytecode first")
    args = parser.parse_args()
    runs = args.runs
    if not args.no_compile:
        package = str(REPO_ROOT / "quotactl")
        subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    quotactl = quotactl_command()
    with tempfile.TemporaryDirectory() as tmp:
        large = str(large_config(Path(tmp) / "configs"))
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "quotactl --help": [*quotactl, "--help"],
            "quotactl validate configs/demo": [*quotactl, "validate", "configs/demo"],
            "quotactl validate (1,000 shares)": [*quotactl, "validate", large],
        }
        results = {label: median_ms(argv, runs) for label, argv in commands.items()}
    for label, (ms, cpu_ms) in results.items():
        print(f"{label:<34} {ms:7.1f} ms  (median of {runs}; CPU {cpu_ms:5.1f} ms)")
    help_ms = results["quotactl --help"][0]
    verdict = "ok" if help_ms < HELP_TARGET_MS else "OVER TARGET"
    print(f"--help target {HELP_TARGET_MS:.0f} ms: {verdict}")
    validate_ms = results["quotactl validate (1,000 shares)"][0]
    verdict = "ok" if validate_ms < VALIDATE_TARGET_MS else "OVER TARGET"
    print(f"validate (1,000 shares) target {VALIDATE_TARGET_MS:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
