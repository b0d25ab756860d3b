"""The acceptance workload: one RESERVE share that sits mostly idle, one that is overloaded."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

PLATFORM = """\
# One pool shared by two teams.
platform:
  name: tunedemo
  region: us-east-1

environments:
  - name: gpu-pool
    capacity: {ml.p5.48xlarge: 16}  # every instance is claimed

queues:
  - name: training
    environment: gpu-pool
"""

TEAMS = """\
teams:
  # Research runs a few small jobs a day.
  - name: research
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 8}
        sharing: reserve   # kept for research alone
  # NLP is always short of capacity.
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 8}
        sharing: reserve
"""


GOVERNED_PLATFORM = PLATFORM.replace(
    "    environment: gpu-pool\n",
    "    environment: gpu-pool\n"
    "    aging: {after: 1h, every: 30m, step: 1, max: 20}  # long waiters rise\n",
)

GOVERNED_TEAMS = """\
teams:
  # Research runs a few small jobs a day.
  - name: research
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 8}
        sharing: reserve   # kept for research alone
        schedule:
          - name: nights   # research is asleep: lend
            when: {hours: "20:00-08:00"}
            sharing: lend
  # NLP is always short of capacity.
  - name: nlp
    budget: {every: day, instance_hours: {ml.p5.48xlarge: 150}, over: soft}
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 8}
        sharing: lend_and_borrow
        schedule:
          - name: weekend
            when: {days: [sat, sun]}
            capacity: {ml.p5.48xlarge: 6}
"""
"""The same two teams under the three policies: a window that makes research lend at night,
one that lowers NLP's capacity at weekends, a soft daily budget on NLP, aging on the queue."""

START = "2026-12-07T00:00Z"
"""A Monday: the trace's second 0 for a governed replay in tests."""


def write_config(folder: Path, teams: str = TEAMS, *, platform: str = PLATFORM) -> Path:
    """The two-team configuration in ``folder/configs`` (platform.yaml, teams/all.yaml)."""
    root = folder / "configs"
    (root / "teams").mkdir(parents=True)
    (root / "platform.yaml").write_text(platform)
    (root / "teams" / "all.yaml").write_text(teams)
    return root


def write_trace(path: Path, *, days: float = 10, seed: int = 3) -> Path:
    """NLP asks for more than its 8 instances (2-instance jobs of 2-4 h every 40 min); research
    runs a one-instance job every 4 h."""
    rng = random.Random(seed)
    rows: list[tuple[float, str, int, int]] = []
    for share, gap, count, durations in (
        ("nlp", 2400.0, 2, (7200, 10800, 14400)),
        ("research", 14400.0, 1, (1800, 3600)),
    ):
        at = 0.0
        while True:
            at += rng.expovariate(1 / gap)
            if at > days * 86400:
                break
            rows.append((round(at), share, count, rng.choice(durations)))
    rows.sort()
    lines = ["submit_time,share,instance_type,count,duration"]
    lines += [f"{at},{share},ml.p5.48xlarge,{n},{d}" for at, share, n, d in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def best_and_simulated(
    cli: Callable[..., CliResult],
    configs: Path,
    trace: Path,
    out: Path,
    *where: str,
    govern: bool = True,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``tune --start START`` of ``configs`` (on the executor ``where`` names; ``--no-govern``
    unless ``govern``) writing its best to ``out``, and ``simulate`` of ``out`` and of
    ``configs`` with the same --start and --no-govern: the best candidate's run as tune
    reports it, the written configuration's run as simulate reports it, and tune's best entry.
    Tune's current configuration must replay as simulate replays ``configs``."""
    shared = ["--start", START] + ([] if govern else ["--no-govern"])
    tuned = cli(
        "tune", str(configs), "--trace", str(trace), "--budget", "8", "--out", str(out),
        "-o", "json", *where, *shared,
    )  # fmt: skip
    assert tuned.exit_code == 0, tuned.stderr
    document = json.loads(tuned.stdout)
    best = next(f for f in document["front"] if f["candidate"] == document["best"])
    runs = []
    for path in (out, configs):
        simulated = cli("simulate", str(path), "--trace", str(trace), "-o", "json", *shared)
        assert simulated.exit_code == 0, simulated.stderr
        runs.append(_unnamed(json.loads(simulated.stdout)["run"]))
    comparison = best["comparison"]
    assert _unnamed(comparison["baseline"]) == runs[1]  # the current config as simulate has it
    return _unnamed(comparison["run"]), runs[0], best


def _unnamed(run: dict[str, Any]) -> dict[str, Any]:
    """A run's figures without the name of its configuration."""
    return {k: v for k, v in run.items() if k != "config"}
