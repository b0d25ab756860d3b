"""The acceptance workload: one RESERVE share that sits mostly idle, one that is overloaded."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

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


def write_config(folder: Path, teams: str = TEAMS) -> Path:
    """The two-team configuration in ``folder/configs`` (platform.yaml, teams/all.yaml)."""
    root = folder / "configs"
    (root / "teams").mkdir(parents=True)
    (root / "platform.yaml").write_text(PLATFORM)
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
