"""``simulate --compare`` on hand-built traces whose before → after figures follow by reasoning.

Every scenario is one queue of ml.p5.48xlarge instances and one-hour, one-instance jobs, so
waits are whole hours and instance-hours are job counts, but for milliseconds: rows with one
submit time keep their trace order, each submitted 1 ms (``MS``) after the one before, as the
emulator submits jobs sent back to back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import ShareVerdict, Side, compare, run_both
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.simulate import Comparison, ShareChange

P5 = "ml.p5.48xlarge"
HOUR = 3600.0
MS = 0.001


def hours(seconds: float) -> object:
    """``seconds`` in instance-hours, as a float sum of them gives it back."""
    return pytest.approx(seconds / HOUR, rel=1e-12, abs=1e-15)


LEND, BORROW, RESERVE = Strategy.LEND, Strategy.LEND_AND_BORROW, Strategy.RESERVE


def queue(capacity: int, *shares: ShareModel) -> tuple[QueueModel, ...]:
    return (QueueModel("q", {P5: capacity}, shares),)


def share(name: str, limit: int, strategy: Strategy, borrow_limit: int = -1) -> ShareModel:
    return ShareModel(name, {P5: limit}, strategy, borrow_limit=borrow_limit, team=name)


def trace(tmp_path: Path, *rows: tuple[float, str]) -> Path:
    path = tmp_path / "trace.csv"
    lines = ["submit_time,share,instance_type,count,duration"]
    lines += [f"{at},{name},{P5},1,3600" for at, name in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def run(
    tmp_path: Path,
    before: tuple[QueueModel, ...],
    after: tuple[QueueModel, ...],
    *rows: tuple[float, str],
) -> Comparison:
    replays = run_both(
        Side("before", before), Side("after", after), trace(tmp_path, *rows), timing=TEST_TIMING
    )
    return compare(*replays)


def figures(change: ShareChange) -> dict[str, tuple[object, object]]:
    def pick(result: object, name: str) -> object:
        if result is None:
            return None
        wait = getattr(result, "wait", None)
        if name in ("p95", "mean"):
            return getattr(wait, name) if wait else None
        return getattr(result, name)

    names = ("p95", "mean", "preemptions", "borrowed_hours", "lent_hours", "finished")
    return {n: (pick(change.before, n), pick(change.after, n)) for n in names}


def test_a_lender_that_stops_lending(tmp_path: Path) -> None:
    """a (LEND 2) turns RESERVE. b (LEND_AND_BORROW 2) submits 4 jobs at 0: before, two run on
    b's own instances and two on a's idle ones, all at once (1 ms apart); after, two wait
    an hour (b3 and b4, submitted 2 and 3 ms after b1, start as b1 and b2 end, 1 ms apart)."""
    before = queue(4, share("a", 2, LEND), share("b", 2, BORROW))
    after = queue(4, share("a", 2, RESERVE), share("b", 2, BORROW))
    result = run(tmp_path, before, after, *[(0, "b")] * 4, (7200, "a"))
    a, b = result.shares
    assert (b.outcome, b.reason) == (ShareVerdict.LOSES, "p95 wait 0 s → 60 min")
    # before, b borrows 1 instance from 2 to 3 ms, 2 until b1 ends at 3600 s, 1 until b2 does
    borrowed = hours(MS + 2 * (HOUR - 3 * MS) + MS)
    assert figures(b) == {
        "p95": (0.0, pytest.approx(HOUR - 2 * MS)),
        "mean": (0.0, pytest.approx((HOUR - 2 * MS) / 2)),
        "preemptions": (0, 0),
        "borrowed_hours": (borrowed, 0.0),
        "lent_hours": (0.0, 0.0),
        "finished": (4, 4),
    }
    assert (a.outcome, figures(a)["lent_hours"]) == (ShareVerdict.UNCHANGED, (borrowed, 0.0))
    # window 0-7200 s, 4 claimed instances: 4 instance-hours used out of 8 either way
    assert result.verdict == (
        "the change keeps utilisation at 50%; no share gains;"
        " team b loses (p95 wait 0 s → 60 min); no job is preempted"
    )


def test_a_lowered_borrow_limit(tmp_path: Path) -> None:
    """b may borrow 100% of its limit of 2, then only 50%: its fourth job waits an hour."""
    before = queue(4, share("a", 2, LEND), share("b", 2, BORROW, borrow_limit=100))
    after = queue(4, share("a", 2, LEND), share("b", 2, BORROW, borrow_limit=50))
    result = run(tmp_path, before, after, *[(0, "b")] * 4, (3600, "a"))
    a, b = result.shares
    # b4, submitted at 3 ms, starts when b1 ends at 3600 s; after, b borrows 1 instance from
    # b3's start at 2 ms until b2 ends at 3600.001 s
    borrowed = (hours(MS + 2 * (HOUR - 3 * MS) + MS), hours(HOUR + MS - 2 * MS))
    assert figures(b) == {
        "p95": (0.0, pytest.approx(HOUR - 3 * MS)),  # nearest rank: the 4th of 4 waits
        "mean": (0.0, pytest.approx((HOUR - 3 * MS) / 4)),
        "preemptions": (0, 0),
        "borrowed_hours": borrowed,
        "lent_hours": (0.0, 0.0),
        "finished": (4, 4),
    }
    assert figures(a)["lent_hours"] == borrowed
    assert result.by_outcome(ShareVerdict.LOSES) == (b,)
    # window 0-3600 s: 4 of 4 instances busy before, 3 after
    assert result.verdict.startswith("the change lowers utilisation from 100% to 75%;")


def test_a_removed_share_frees_what_it_borrowed(tmp_path: Path) -> None:
    """c and a (LEND_AND_BORROW 2 each) race for b's one idle instance; c submits first and
    wins, so a's third job waits an hour. Without c, a gets it at once; c's three jobs have
    nowhere to run in the new config.

    To the millisecond: before, c's jobs are submitted at 0, 1, 2 ms and a's at 3, 4, 5 ms;
    c1 ends at 3600 s (c3 is then c's own: b's instance goes to b's job), c2 1 ms later, and
    a3 borrows that instance of c's until a1 ends at 3600.003 s. After, a's are at 0, 1, 2 ms
    and a3 holds b's instance from 2 ms until b's job reclaims it at 3600 s."""
    before = queue(5, share("a", 2, BORROW), share("b", 1, LEND), share("c", 2, BORROW))
    after = queue(5, share("a", 2, BORROW), share("b", 1, LEND))
    rows = [(0, "c")] * 3 + [(0, "a")] * 3 + [(3600, "b")]
    result = run(tmp_path, before, after, *rows)
    a, b, c = result.shares
    assert (a.outcome, a.reason) == (ShareVerdict.GAINS, "p95 wait 60 min → 0 s")
    assert figures(a)["borrowed_hours"] == (hours(2 * MS), hours(HOUR - 2 * MS))
    assert (c.outcome, c.before is not None, c.after, c.not_replayed) == (
        ShareVerdict.REMOVED,
        True,
        None,
        3,
    )
    assert b.outcome is ShareVerdict.UNCHANGED
    # before, c3's borrowing is b's in proportion to what each lender leaves idle: a third of
    # it while a has 2 idle (2-3 ms), half while a has 1 (3-4 ms), then all of it
    lent_before = hours(MS / 3 + MS / 2 + HOUR - 4 * MS)
    assert figures(b)["lent_hours"] == (lent_before, hours(HOUR - 2 * MS))
    assert result.verdict == (
        "the change keeps utilisation at 100%; team a gains (p95 wait 60 min → 0 s);"
        " no share loses; team c's share c is removed (3 of its jobs have nowhere to run);"
        " no job is preempted"
    )


def test_an_added_share_is_named_and_its_rows_skipped_by_the_old_config(tmp_path: Path) -> None:
    before = queue(2, share("a", 2, RESERVE))
    after = queue(4, share("a", 2, RESERVE), share("n", 2, RESERVE))
    result = run(tmp_path, before, after, (0, "a"), (0, "n"), (10, "n"))
    a, n = result.shares
    assert (n.outcome, n.before, n.not_replayed) == (ShareVerdict.ADDED, None, 2)
    assert n.after is not None
    assert n.after.finished == 2
    assert a.outcome is ShareVerdict.UNCHANGED
    assert "team n's share n is added" in result.verdict


def test_a_row_for_a_share_neither_config_has_is_an_error(tmp_path: Path) -> None:
    from quotactl.errors import TraceError

    config = queue(2, share("a", 2, RESERVE))
    with pytest.raises(TraceError, match="no quota share 'zz'"):
        run(tmp_path, config, config, (0, "zz"))
