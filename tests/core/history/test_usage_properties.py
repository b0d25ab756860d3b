"""``usage_of`` on hand-made ledgers: the guarantee-miss measure, and identities that hold for
any ledger (used = own + borrowed, own + idle + reserved_unused = entitled, lent never more
than borrowed, periods adding up to the window)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings, strategies as st

from quotactl.core.history.ledger import Attempt, AttemptOutcome
from quotactl.core.history.report import By, Every
from quotactl.core.history.usage import usage_of
from quotactl.core.resources.desired import ShareSpec, Strategy

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
P5 = "ml.p5.48xlarge"
SHARES = (
    ShareSpec("q", "a", {P5: 4}, Strategy.LEND_AND_BORROW, team="red"),
    ShareSpec("q", "b", {P5: 4}, Strategy.LEND, team="blue"),
    ShareSpec("q", "c", {P5: 2}, Strategy.RESERVE, team="blue"),
)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def attempt(
    job: str,
    share: str,
    count: int,
    submitted: float,
    started: float | None,
    stopped: float | None,
    outcome: AttemptOutcome,
    number: int = 1,
    priority: int = 0,
) -> Attempt:
    return Attempt(
        job_id=job,
        attempt=number,
        name=job,
        queue="q",
        share=share,
        team=None,
        instance_type=P5,
        count=count,
        priority=priority,
        submitted_at=at(submitted),
        started_at=at(started) if started is not None else None,
        stopped_at=at(stopped) if stopped is not None else None,
        outcome=outcome,
    )


def reclaim(window: float) -> list[Attempt]:
    """a borrows all of b's capacity; b's job at 600 s reclaims it, and the victim takes
    ``window`` seconds to stop before b's job starts."""
    return [
        attempt("a1", "a", 8, 0, 0, 600 + window, AttemptOutcome.PREEMPTED),
        attempt("a1", "a", 8, 0, None, None, AttemptOutcome.WAITING, number=2),
        attempt("b1", "b", 4, 600, 600 + window, 3600, AttemptOutcome.SUCCEEDED),
    ]


def share_row(rows: list[Attempt], share: str, grace: float) -> tuple[float, float]:
    report = usage_of(rows, SHARES, start=T0, end=at(7200), grace=grace)
    row = next(r for r in report.rows if r.share == share)
    return (round(row.guarantee_miss_hours * 3600, 6), round(row.longest_miss_seconds, 6))


def test_a_slow_reclaim_is_a_guarantee_miss_beyond_the_grace() -> None:
    rows = reclaim(20)
    assert share_row(rows, "b", 0) == (20.0, 20.0)
    assert share_row(rows, "b", 5) == (15.0, 15.0)
    assert share_row(rows, "b", 300) == (0.0, 0.0)
    # a's head (a1, waiting again) needs 8 > its limit of 4: never a miss
    assert share_row(rows, "a", 0) == (0.0, 0.0)


def test_an_immediate_reclaim_misses_nothing() -> None:
    assert share_row(reclaim(0), "b", 0) == (0.0, 0.0)


def test_the_head_is_the_share_order_first_job() -> None:
    """A high-priority job that fits waits behind nothing; a low-priority one that would fit
    but is not the head counts for nothing."""
    rows = [
        attempt("a1", "a", 8, 0, 0, 1000, AttemptOutcome.SUCCEEDED),
        # b's head is b2 (priority 9, 4 instances): it fits b's limit and waits 400 s
        attempt("b1", "b", 1, 600, 1000, 2000, AttemptOutcome.SUCCEEDED),
        attempt("b2", "b", 4, 600, 1000, 2000, AttemptOutcome.SUCCEEDED, priority=9),
    ]
    assert share_row(rows, "b", 0) == (400.0, 400.0)


runs = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "x"]),
        st.integers(1, 6),
        st.integers(0, 20_000),
        st.integers(0, 5_000),
        st.integers(1, 30_000),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(jobs=runs, every=st.sampled_from([None, Every.DAY]), by=st.sampled_from(list(By)))
def test_figures_add_up_for_any_ledger(
    jobs: list[tuple[str, int, int, int, int]], every: Every | None, by: By
) -> None:
    rows = [
        attempt(f"j{i}", share, n, sub, sub + wait, sub + wait + run, AttemptOutcome.SUCCEEDED)
        for i, (share, n, sub, wait, run) in enumerate(jobs)
    ]
    report = usage_of(rows, SHARES, start=at(1000), end=at(30_000), every=every, by=by)
    for r in report.rows:
        assert math.isclose(r.used, r.own + r.borrowed, abs_tol=1e-9)
        assert math.isclose(r.entitled, r.own + r.idle + r.reserved_unused, abs_tol=1e-9)
    assert sum(r.lent for r in report.rows) <= sum(r.borrowed for r in report.rows) + 1e-9
    if every is not None:
        assert len(report.periods) == 2  # the window crosses one UTC midnight
        for name in ("used", "own", "borrowed", "lent", "idle", "entitled"):
            whole = sum(getattr(r, name) for r in report.rows)
            parts = sum(getattr(r, name) for p in report.periods for r in p.rows)
            assert math.isclose(whole, parts, abs_tol=1e-9), name
