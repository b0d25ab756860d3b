"""``usage_of`` against a brute-force reference: on ledgers whose times are whole seconds, every
figure is worked out second by second (the state during ``[t, t + 1)``: who runs, who waits,
the share's head, ``status``'s lending rule at that instant) and added up, with no events, no
stretches and no heap. The sweep must give the same instance-seconds to a microsecond. With
schedule windows the reference takes each second's limits and strategies from the windows in
force then; with settings records (as ``apply``, ``govern`` and ``history`` log them) from
the share's records at or before that second, folded in order onto the configuration's
settings at its first record."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from hypothesis import given, settings, strategies as st

from quotactl.core.govern.windows import apply_window, window_in_force
from quotactl.core.history.jobs import job_records
from quotactl.core.history.ledger import Attempt, AttemptOutcome
from quotactl.core.history.report import Every
from quotactl.core.history.settings import (
    SettingsRecord,
    log_record,
    settings_records,
    with_fields,
)
from quotactl.core.history.usage import usage_of
from quotactl.core.resources.desired import ShareSpec, Strategy, When, Window
from quotactl.core.status.compute import attribute

if TYPE_CHECKING:
    from fractions import Fraction

    from quotactl.core.history.jobs import JobRecord

T0 = datetime(2026, 11, 30, 23, 20, tzinfo=UTC)
BASE = T0.timestamp()  # the jobs' times are epoch seconds
MIDNIGHT = 2400  # seconds after T0
START, END = 200, 3000  # the window, in seconds after T0
P5, G5 = "ml.p5.48xlarge", "ml.g5.xlarge"
SHARES = (
    ShareSpec("q", "a", {P5: 4, G5: 2}, Strategy.LEND_AND_BORROW, team="red"),
    ShareSpec("q", "b", {P5: 4}, Strategy.LEND, team="blue"),
    ShareSpec("q", "c", {P5: 2, G5: 1}, Strategy.RESERVE, team="blue"),
)
# the same shares with windows (minutes of the UTC day; T0 is 23:20): a's p5s drop to 1 from
# 23:30 to 23:50, b turns RESERVE with less capacity from 23:45 to 00:05, c lends 5 p5s from
# 00:00 to 00:08
WINDOWED = (
    ShareSpec(
        "q",
        "a",
        {P5: 4, G5: 2},
        Strategy.LEND_AND_BORROW,
        team="red",
        schedule=(Window("low", When(hours=(1410, 1430)), capacity={P5: 1}),),
    ),
    ShareSpec(
        "q",
        "b",
        {P5: 4},
        Strategy.LEND,
        team="blue",
        schedule=(
            Window(
                "kept",
                When(hours=(1425, 5)),
                capacity={P5: 2, G5: 1},
                strategy=Strategy.RESERVE,
            ),
        ),
    ),
    ShareSpec(
        "q",
        "c",
        {P5: 2, G5: 1},
        Strategy.RESERVE,
        team="blue",
        schedule=(Window("burst", When(hours=(0, 8)), capacity={P5: 5}, strategy=Strategy.LEND),),
    ),
)
FIGURES = ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved_unused")


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


# a job: share, type, instances, priority, submission, then (wait, run) per attempt and how
# the last attempt ended
jobs_strategy = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "x"]),
        st.sampled_from([P5, P5, G5]),
        st.integers(1, 5),
        st.integers(0, 2),
        st.integers(0, 2800),
        st.lists(st.tuples(st.integers(0, 600), st.integers(0, 1500)), min_size=1, max_size=3),
        st.sampled_from(["SUCCEEDED", "FAILED", "CANCELLED", "UNSTARTED", "RUNNING", "WAITING"]),
    ),
    max_size=10,
)

Job = tuple[str, str, int, int, int, list[tuple[int, int]], str]


def ledger(jobs: list[Job]) -> list[Attempt]:
    rows: list[Attempt] = []
    for j, (share, itype, n, priority, submitted, tries, last) in enumerate(jobs):
        job = (f"j{j}", share, itype, n, priority, submitted)
        now = submitted
        for number, (wait, run) in enumerate(tries, start=1):
            start, stop = now + wait, now + wait + run
            if number < len(tries):
                rows.append(row(job, number, start, stop, AttemptOutcome.PREEMPTED))
            elif last == "UNSTARTED":  # cancelled while it waited
                rows.append(row(job, number, None, start, AttemptOutcome.CANCELLED))
            elif last == "WAITING":
                rows.append(row(job, number, None, None, AttemptOutcome.WAITING))
            elif last == "RUNNING":
                rows.append(row(job, number, start, None, AttemptOutcome.RUNNING))
            else:
                rows.append(row(job, number, start, stop, AttemptOutcome(last)))
            now = stop
    return rows


def row(
    job: tuple[str, str, str, int, int, int],
    number: int,
    start: int | None,
    stop: int | None,
    outcome: AttemptOutcome,
) -> Attempt:
    job_id, share, itype, n, priority, submitted = job
    return Attempt(
        job_id,
        number,
        job_id,
        "q",
        share,
        None,
        itype,
        n,
        priority,
        at(submitted),
        at(start) if start is not None else None,
        at(stop) if stop is not None else None,
        outcome,
    )


Settings = tuple[dict[tuple[str, str], int], dict[str, bool]]
_IN_FORCE: dict[tuple[int, int], Settings] = {}

# a settings record: share, seconds after T0, and what it sets (None: the share was deleted)
Fields = dict[str, object] | None
records_strategy = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "x"]),
        st.integers(-100, 2900),
        st.one_of(
            st.none(),
            st.builds(
                lambda p, g: {"capacity": {P5: p, G5: g}}, st.integers(0, 5), st.integers(0, 2)
            ),
            st.sampled_from([{"sharing": "reserve"}, {"sharing": "lend"}]),
            st.builds(
                lambda p, s: {
                    "capacity": {P5: p},
                    "sharing": s,
                    "borrow_limit": None,
                    "in_share_preemption": False,
                    "enabled": True,
                },
                st.integers(0, 5),
                st.sampled_from(["reserve", "lend", "lend_and_borrow"]),
            ),
        ),
    ),
    max_size=5,
)
Recorded = list[tuple[str, int, Fields]]


def logged(records: Recorded) -> list[SettingsRecord]:
    """The records as a log file holds them, read back."""
    lines = [
        log_record(
            at(t),
            "apply",
            "delete-share" if fields is None else "update-share",
            f"share.q/{share}",
            None,
            fields,
            "test",
            "applied",
        )
        for share, t, fields in records
    ]
    return settings_records(lines)


def in_force(shares: tuple[ShareSpec, ...], t: int) -> Settings:
    """The limits and whether each share lends during second ``t`` (``shares`` is one of
    the constants above: kept by its id)."""
    key = (id(shares), t)
    found = _IN_FORCE.get(key)
    if found is None:
        now = [apply_window(s, window_in_force(s, at(t))) for s in shares]
        found = _IN_FORCE[key] = (
            {(s.name, k): n for s in now for k, n in s.capacity.items()},
            {s.name: s.strategy.lends for s in now},
        )
    return found


_WINDOWS: dict[tuple[int, int], tuple[str | None, ...]] = {}


def windows_at(shares: tuple[ShareSpec, ...], t: int) -> tuple[str | None, ...]:
    """The window in force on each of ``shares`` during second ``t`` (kept as ``in_force``)."""
    key = (id(shares), t)
    found = _WINDOWS.get(key)
    if found is None:
        found = _WINDOWS[key] = tuple(
            w.name if (w := window_in_force(s, at(t))) is not None else None for s in shares
        )
    return found


def recorded_in_force(
    shares: tuple[ShareSpec, ...],
    records: Recorded,
    t: int,
    memo: dict[object, Settings] | None = None,
) -> Settings:
    """As ``in_force``, a share with records at or before ``t`` taking the fold of them (in
    time order, ties in the order given) onto its settings at its first record. ``memo``
    keeps the answer for each combination of windows in force and records applied (the
    fold changes only there)."""
    if not records:
        return in_force(shares, t)
    if memo is not None:
        key = (windows_at(shares, t), tuple(when <= t for _, when, _ in records))
        found = memo.get(key)
        if found is None:
            found = memo[key] = recorded_in_force(shares, records, t)
        return found
    by_name = {s.name: s for s in shares}
    limits: dict[tuple[str, str], int] = {}
    lends: dict[str, bool] = {}
    ordered = sorted(records, key=lambda r: r[1])
    for name in sorted(set(by_name) | {r[0] for r in records}):
        base = by_name.get(name, ShareSpec("q", name, {}))
        mine = [r for r in ordered if r[0] == name]
        if not mine or mine[0][1] > t:
            spec = apply_window(base, window_in_force(base, at(t)))
        else:
            spec = apply_window(base, window_in_force(base, at(mine[0][1])))
            for _, when, fields in mine:
                if when <= t:
                    spec = with_fields(spec, fields)
        limits.update({(name, k): n for k, n in spec.capacity.items()})
        lends[name] = spec.strategy.lends
    return limits, lends


def reference(
    jobs: list[JobRecord],
    periods: bool,
    grace: int,
    shares_spec: tuple[ShareSpec, ...] = SHARES,
    records: Recorded | None = None,
) -> dict[tuple[int, str, str], dict[str, float]]:
    """Every figure per (slice, share, type), second by second."""
    got: dict[tuple[int, str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    jobs = [j for j in jobs if j.share is not None and j.instance_type is not None]
    shares = sorted(
        {s.name for s in shares_spec}
        | {j.share for j in jobs if j.share}
        | {r[0] for r in records or ()}
    )
    types = (P5, G5)
    spell: dict[str, int | None] = dict.fromkeys(shares)
    spell_missed: dict[str, dict[tuple[int, str], float]] = {s: defaultdict(float) for s in shares}
    longest: dict[tuple[int, str, str], float] = defaultdict(float)

    def close(s: str) -> None:
        for (i, t), seconds in spell_missed[s].items():
            longest[i, s, t] = max(longest[i, s, t], seconds)
        spell_missed[s] = defaultdict(float)
        spell[s] = None

    use: dict[tuple[str, str], list[int]] = {(s, k): [0] * (END + 1) for s in shares for k in types}
    waiting: dict[str, list[list[JobRecord]]] = {s: [[] for _ in range(END + 1)] for s in shares}
    for j in jobs:
        assert j.share is not None
        assert j.instance_type is not None
        for a, b in j.runs:
            for t in range(int(a - BASE), int(min(b - BASE, END))):
                use[j.share, j.instance_type][t] += j.instances
        for a, b in j.waits:
            for t in range(int(a - BASE), int(min(b - BASE, END))):
                waiting[j.share][t].append(j)
    memo: dict[object, Settings] = {}
    attributed: dict[object, dict[str, Fraction]] = {}
    for t in range(END):
        limits, lends = recorded_in_force(shares_spec, records or [], t, memo)
        slices = [0, 1 if t < MIDNIGHT else 2] if periods else [0]
        in_window = t >= START
        for k in types:
            figures = {}
            for s in shares:
                u, lim = use[s, k][t], limits.get((s, k), 0)
                own = min(u, lim)
                idle = lim - own if lends.get(s, False) else 0
                figures[s] = (u - own, idle)
                if not in_window or not (u or lim):
                    continue
                for i in slices:
                    row = got[i, s, k]
                    row["entitled"] += lim
                    row["used"] += u
                    row["own"] += own
                    row["borrowed"] += u - own
                    row["idle" if lends.get(s, False) else "reserved_unused"] += lim - own
            seen = (k, tuple(figures.items()))
            lent = attributed.get(seen)  # the figures change only at a start, end or record
            if lent is None:
                lent = attributed[seen] = attribute(k, figures)[0]
            for s, value in lent.items():
                if in_window and value:
                    for i in slices:
                        got[i, s, k]["lent"] += float(value)
        for s in shares:
            head = min(
                waiting[s][t], key=lambda j: (-j.priority, j.submitted, j.job_id), default=None
            )
            if head is None or not (
                head.instance_type is not None
                and use[s, head.instance_type][t] + head.instances
                <= limits.get((s, head.instance_type), 0)
            ):
                close(s)
                continue
            begun = spell[s]
            if begun is None:
                begun = spell[s] = t
            if in_window and t >= begun + grace:
                for i in slices:
                    got[i, s, head.instance_type]["missed"] += 1
                    spell_missed[s][i, head.instance_type] += 1
    for s in shares:
        close(s)
    for key, seconds in longest.items():
        if seconds:
            got[key]["longest"] = seconds
    return got


@settings(max_examples=150, deadline=None)
@given(
    jobs=jobs_strategy,
    every=st.sampled_from([None, Every.DAY]),
    grace=st.sampled_from([0, 7, 300]),
    shares=st.sampled_from([SHARES, WINDOWED]),
    records=records_strategy,
)
def test_every_figure_is_the_second_by_second_sum(
    jobs: list[Job],
    every: Every | None,
    grace: int,
    shares: tuple[ShareSpec, ...],
    records: Recorded,
) -> None:
    rows = ledger(jobs)
    report = usage_of(
        rows,
        shares,
        start=at(START),
        end=at(END),
        every=every,
        grace=grace,
        settings=logged(records),
    )
    expected = reference(job_records(rows), every is not None, grace, shares, records)
    found: dict[tuple[int, str, str], dict[str, float]] = {}
    for i, part in enumerate([report.rows, *(p.rows for p in report.periods)]):
        for r in part:
            assert r.share is not None
            figures = {name: getattr(r, name) * 3600 for name in FIGURES}
            figures["missed"] = r.guarantee_miss_hours * 3600
            figures["longest"] = r.longest_miss_seconds
            found[i, r.share, r.instance_type] = figures
    for key in set(found) | {k for k, v in expected.items() if any(v.values())}:
        want, got = expected.get(key, {}), found.get(key, {})
        for name in (*FIGURES, "missed", "longest"):
            assert math.isclose(got.get(name, 0.0), want.get(name, 0.0), abs_tol=1e-6), (
                key,
                name,
                got.get(name),
                want.get(name),
            )


def test_a_job_that_waits_again_is_the_head_once() -> None:
    """b2 waits, runs for no time at all and waits again: one entry among the share's waiting
    jobs, so once it starts for good, b's head is the next job (which does not fit), and no
    more time is missed."""
    rows = [
        Attempt(
            "b1",
            1,
            "b1",
            "q",
            "b",
            None,
            P5,
            1,
            5,
            at(0),
            at(0),
            at(3000),
            AttemptOutcome.SUCCEEDED,
        ),
        Attempt(
            "b2",
            1,
            "b2",
            "q",
            "b",
            None,
            P5,
            1,
            1,
            at(100),
            at(400),
            at(400),
            AttemptOutcome.PREEMPTED,
        ),
        Attempt(
            "b2",
            2,
            "b2",
            "q",
            "b",
            None,
            P5,
            1,
            1,
            at(100),
            at(700),
            at(3000),
            AttemptOutcome.SUCCEEDED,
        ),
        Attempt(
            "b3", 1, "b3", "q", "b", None, P5, 4, 0, at(200), None, None, AttemptOutcome.WAITING
        ),
    ]
    report = usage_of(rows, SHARES, start=at(START), end=at(END), grace=0)
    row = next(r for r in report.rows if r.share == "b")
    # b2 (1 instance, 1 in use of 4) fits and waits 200-400 and 400-700: one spell of 500 s
    assert round(row.guarantee_miss_hours * 3600, 6) == 500.0
    assert round(row.longest_miss_seconds, 6) == 500.0


def test_a_limit_lowered_by_a_record_turns_use_into_borrowing() -> None:
    """a runs 4 p5s throughout; a record lowers its limit from 4 to 1 halfway: borrowed is
    3 instances for the second half only, and the first half is the configuration's (said)."""
    rows = [
        Attempt("a1", 1, "a1", "q", "a", None, P5, 4, 0, at(0), at(0), None, AttemptOutcome.RUNNING)
    ]
    records = logged([("a", 1600, {"capacity": {P5: 1, G5: 2}})])
    report = usage_of(rows, SHARES, start=at(START), end=at(END), settings=records)
    row = next(r for r in report.rows if r.share == "a" and r.instance_type == P5)
    assert round(row.borrowed * 3600) == 3 * (END - 1600)
    assert round(row.entitled * 3600) == 4 * (1600 - START) + 1 * (END - 1600)
    gaps = {(g.share, g.start, g.end) for g in report.settings_from_config or ()}
    assert gaps == {
        ("a", at(START), at(1600)),
        ("b", at(START), at(END)),
        ("c", at(START), at(END)),
    }


def test_the_governors_log_is_read_as_settings_and_its_failures_are_not() -> None:
    """A govern --log record (only the fields it changed) lowers a's p5 limit at 1600 s and
    keeps its g5s; a failed action, which changed nothing, is left out."""
    from quotactl.core.govern.cycle import Action
    from quotactl.core.govern.run import Outcome

    def outcome(t: int, p5: int, result: str) -> dict[str, object]:
        action = Action(
            "budget",
            "update-share",
            "share.q/a",
            {"capacity": {P5: 4, G5: 2}},
            {"capacity": {P5: p5, G5: 2}},
            {"capacity": {P5: p5, G5: 2}},
            "red's budget is spent",
        )
        return Outcome(action, result).record(at(t))

    rows = [
        Attempt("a1", 1, "a1", "q", "a", None, P5, 4, 0, at(0), at(0), None, AttemptOutcome.RUNNING)
    ]
    lines = [outcome(1000, 0, "failed"), outcome(1600, 1, "applied")]
    report = usage_of(rows, SHARES, start=at(START), end=at(END), settings=settings_records(lines))
    p5 = next(r for r in report.rows if r.share == "a" and r.instance_type == P5)
    g5 = next(r for r in report.rows if r.share == "a" and r.instance_type == G5)
    assert round(p5.borrowed * 3600) == 3 * (END - 1600)
    assert round(g5.entitled * 3600) == 2 * (END - START)
