"""The scripted emulator scenario the history and usage tests share, with its figures worked
out by hand.

One queue, ``training``, on 10 p5 instances. Shares (p5 limits): ``a`` (team red, 4,
LEND_AND_BORROW, in-share preemption), ``b`` (team blue, 4, LEND) and ``c`` (team blue, 2,
RESERVE, never used). The clock starts at T0 = 22:00:00 UTC, so a UTC day ends at T0 + 2 h.
Job run times are their ``quotactl:duration`` tags; the emulator's timing is zero (tests'
default), so a job starts the moment the scheduler places it.

    t=0     A1 (a, 6 instances, priority 5, 10 h): 4 own + 2 borrowed from b
    t=1h    B1 (b, 4, 2 h) reclaims: A1 preempted (attempt 1 lost 6 instance-hours)
    t=3h    B1 succeeds; A1 starts again (attempt 2), 4 own + 2 borrowed
    t=4h    A2 (a, 4, priority 9, 1 h): in-share preemption of A1 (attempt 2 lost 6)
    t=5h    A2 succeeds; A1 starts again (attempt 3), 4 own + 2 borrowed
    t=5.5h  C1 (b, 2, 10 h) starts on b's idle capacity
    t=6.5h  C1 cancelled (TerminateServiceJob)
    t=8h    the window ends with A1 still running

U of a and b per stretch: [0,1) 6/0, [1,3) 0/4, [3,4) 6/0, [4,5) 4/0, [5,5.5) 6/0,
[5.5,6.5) 6/2, [6.5,8) 6/0. Borrowed capacity is only a's, and b is the only share with
idle lendable capacity whenever a borrows, so b lends exactly what a borrows.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from tests.cli.jobs_support import batch_client
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.engine import Timing

P5 = "ml.p5.48xlarge"
HOUR = 3600
STACK = """\
platform: {name: history, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 10}
queues:
  - name: training
    environment: pool
teams:
  - name: red
    shares:
      - name: a
        queue: training
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend_and_borrow
        in_share_preemption: true
  - name: blue
    shares:
      - name: b
        queue: training
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend
      - name: c
        queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: reserve
"""

# Per share, over [T0, T0 + 8h): (entitled, used, own, borrowed, lent, idle, reserved_unused,
# jobs, preemptions, work_lost), in instance-hours.
WINDOW = {
    "a": (32, 34, 24, 10, 0, 8, 0, 2, 2, 12),
    "b": (32, 10, 10, 0, 10, 22, 0, 2, 0, 0),
    "c": (16, 0, 0, 0, 0, 0, 16, 0, 0, 0),
}
# The same per UTC day: [T0, T0 + 2h) and [T0 + 2h, T0 + 8h).
DAYS = (
    {
        "a": (8, 6, 4, 2, 0, 4, 0, 1, 1, 6),
        "b": (8, 4, 4, 0, 2, 4, 0, 1, 0, 0),
        "c": (4, 0, 0, 0, 0, 0, 4, 0, 0, 0),
    },
    {
        "a": (24, 28, 20, 8, 0, 4, 0, 1, 1, 6),
        "b": (24, 6, 6, 0, 8, 18, 0, 1, 0, 0),
        "c": (12, 0, 0, 0, 0, 0, 12, 0, 0, 0),
    },
)
TEAMS = {
    "red": WINDOW["a"],
    "blue": tuple(b + c for b, c in zip(WINDOW["b"], WINDOW["c"], strict=True)),
}
FIELDS = (
    "entitled",
    "used",
    "own",
    "borrowed",
    "lent",
    "idle",
    "reserved_unused",
    "jobs",
    "preemptions",
    "work_lost",
)


def figures(row: dict[str, Any]) -> tuple[float, ...]:
    return tuple(row[f] for f in FIELDS)


def close(found: tuple[float, ...], expected: tuple[float, ...]) -> bool:
    """Equal to the second: an instance-hour figure within a millisecond's worth."""
    return all(math.isclose(f, e, abs_tol=1e-6) for f, e in zip(found, expected, strict=True))


class Scenario:
    """Drives the emulated account at ``state`` through the script, step by step."""

    def __init__(self, state: Path, timing: Timing = TEST_TIMING) -> None:
        from quotactl.emulator import Emulator

        self.state = state
        self.timing = timing
        with Emulator(state, timing=timing) as emulator:
            now = emulator.now()
        start = datetime.fromtimestamp(now, UTC).replace(minute=0, second=0, microsecond=0)
        start = start.replace(hour=22)
        if start.timestamp() <= now:
            start += timedelta(days=1)
        self.t0 = start
        self.advance_to(0)
        self.ids: dict[str, str] = {}

    def at(self, hours: float) -> datetime:
        return self.t0 + timedelta(hours=hours)

    def advance_to(self, hours: float) -> None:
        from quotactl.emulator import Emulator

        with Emulator(self.state, timing=self.timing) as emulator:
            emulator.advance(self.at(hours).timestamp() - emulator.now())

    def submit(self, name: str, share: str, count: int, hours: float, priority: int = 5) -> None:
        out = batch_client(self.state).submit_service_job(
            jobName=name,
            jobQueue="training",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(P5, count, 172_800),
            quotaShareName=share,
            schedulingPriority=priority,
            tags={"quotactl:duration": str(round(hours * HOUR))},
        )
        self.ids[name] = out["jobId"]

    def cancel(self, name: str) -> None:
        batch_client(self.state).terminate_service_job(jobId=self.ids[name], reason="not needed")

    def run(self, until: float = 8, step: Any = None) -> None:
        """The script up to ``until`` hours; ``step(hours)`` is called at each stop."""
        script: list[tuple[float, Any]] = [
            (0, lambda: self.submit("A1", "a", 6, 10)),
            (1, lambda: self.submit("B1", "b", 4, 2)),
            (4, lambda: self.submit("A2", "a", 4, 1, priority=9)),
            (5.5, lambda: self.submit("C1", "b", 2, 10)),
            (6.5, lambda: self.cancel("C1")),
            (8, lambda: None),
        ]
        for hours, action in script:
            if hours > until:
                break
            self.advance_to(hours)
            action()
            if step is not None:
                step(hours)
