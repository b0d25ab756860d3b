"""A hand-built status report: one queue, four shares, two lenders of one borrower."""

from __future__ import annotations

from fractions import Fraction

from quotactl.core.resources.desired import Strategy
from quotactl.core.status.compute import totals
from quotactl.core.status.report import (
    Borrowing,
    CapacityRow,
    Head,
    QueueStatus,
    ShareStatus,
    StatusReport,
    TeamRow,
    TeamStatus,
)

AT = 1_796_119_200.0  # 2026-12-01T10:00:00Z
P5, G5 = "ml.p5.48xlarge", "ml.g5.12xlarge"


def jobs(runnable: int = 0, running: int = 0, starting: int = 0) -> dict[str, int]:
    return {
        "SUBMITTED": 0,
        "RUNNABLE": runnable,
        "SCHEDULED": 0,
        "STARTING": starting,
        "RUNNING": running,
    }


def row(t: str, limit: int, in_use: int, idle: int, lent: Fraction, room: int) -> CapacityRow:
    own = min(in_use, limit)
    return CapacityRow(t, limit, in_use, own, in_use - own, idle, lent, room)


def report() -> StatusReport:
    shares = (
        ShareStatus(
            "nlp",
            "nlp",
            Strategy.LEND_AND_BORROW,
            100,
            True,
            True,
            (row(P5, 4, 6, 0, Fraction(0), 0),),
            jobs(runnable=1, running=2),
            1,
            Head("0b9d", "nlp-big", "borrow-limit"),
        ),
        ShareStatus(
            "ranking",
            "ranking",
            Strategy.RESERVE,
            None,
            True,
            True,
            (row(G5, 4, 4, 0, Fraction(0), 0),),
            jobs(running=1),
            0,
            None,
        ),
        ShareStatus(
            "research",
            "research",
            Strategy.LEND,
            None,
            False,
            True,
            (row(G5, 4, 1, 3, Fraction(0), 3), row(P5, 2, 0, 2, Fraction(4, 3), 0)),
            jobs(starting=1),
            0,
            None,
        ),
        ShareStatus(
            "vision-experiments",
            "vision",
            Strategy.LEND_AND_BORROW,
            -1,
            False,
            False,
            (row(P5, 2, 0, 2, Fraction(2, 3), 0),),
            jobs(),
            0,
            None,
        ),
    )
    queue = QueueStatus(
        "training",
        True,
        "gpu-pool",
        {G5: 16, P5: 8},
        shares,
        totals(shares),
        (
            Borrowing(P5, "nlp", "research", Fraction(4, 3)),
            Borrowing(P5, "nlp", "vision-experiments", Fraction(2, 3)),
        ),
    )
    teams = (
        TeamStatus("nlp", (TeamRow(P5, 4, 6, 2, Fraction(0)),)),
        TeamStatus(
            "research", (TeamRow(G5, 4, 1, 0, Fraction(0)), TeamRow(P5, 2, 0, 0, Fraction(4, 3)))
        ),
    )
    return StatusReport(AT, (queue,), teams)
