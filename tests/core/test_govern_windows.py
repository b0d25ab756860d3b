"""Schedule windows in time: desired_at gives each share's settings at an instant, on the
window zone's wall clock, across midnight and daylight-saving changes; the first window that
matches wins; outside every window the share has its own settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings, strategies as st

from quotactl.core.govern import desired_at, next_change, policy_state
from quotactl.core.govern.windows import combinations
from quotactl.core.resources.desired import (
    UNLIMITED,
    Budget,
    DesiredState,
    ShareSpec,
    Strategy,
    TeamSpec,
    When,
    Window,
)

BERLIN = ZoneInfo("Europe/Berlin")
BASE = {"ml.p5.48xlarge": 4}
# any instant in 2026-2028: three spring and three autumn changes in Berlin
INSTANTS = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2028, 12, 31), timezones=st.just(UTC)
)


def _state(*windows: Window, strategy: Strategy = Strategy.LEND) -> DesiredState:
    share = ShareSpec(
        "training", "research", BASE, strategy=strategy, team="research", schedule=windows
    )
    return DesiredState("demo", "us-east-1", None, shares=(share,))


def _capacity(state: DesiredState, at: datetime) -> int:
    return desired_at(state, at).shares[0].capacity["ml.p5.48xlarge"]


NIGHTS = Window(
    "nights",
    When(days=(0, 1, 2, 3, 4), hours=(20 * 60, 8 * 60), timezone="Europe/Berlin"),
    capacity={"ml.p5.48xlarge": 8},
)


@settings(max_examples=400, deadline=None)
@given(INSTANTS)
def test_a_night_window_holds_the_berlin_wall_clock_on_both_sides_of_a_dst_change(
    instant: datetime,
) -> None:
    local = instant.astimezone(BERLIN)
    minute = local.hour * 60 + local.minute
    evening = minute >= 20 * 60 and local.weekday() <= 4
    morning = minute < 8 * 60 and (local.weekday() - 1) % 7 <= 4  # started mon-fri
    expected = 8 if evening or morning else 4
    assert _capacity(_state(NIGHTS), instant) == expected


def test_the_window_starts_at_20_berlin_in_winter_and_in_summer() -> None:
    state = _state(NIGHTS)
    # the Friday before the spring change (CET, +1) and the Monday after it (CEST, +2)
    winter = datetime(2027, 3, 26, 19, 0, tzinfo=UTC)  # 20:00 CET
    summer = datetime(2027, 3, 29, 18, 0, tzinfo=UTC)  # 20:00 CEST
    for start in (winter, summer):
        assert _capacity(state, start - timedelta(minutes=1)) == 4
        assert _capacity(state, start) == 8
    # Friday night runs into Saturday morning, across the change (02:00 -> 03:00 on Sunday
    # is later; Saturday 08:00 CET is 07:00 UTC)
    assert _capacity(state, datetime(2027, 3, 27, 6, 59, tzinfo=UTC)) == 8
    assert _capacity(state, datetime(2027, 3, 27, 7, 0, tzinfo=UTC)) == 4
    # but Saturday night is not a window night (days name the day a window starts)
    assert _capacity(state, datetime(2027, 3, 27, 21, 0, tzinfo=UTC)) == 4


def test_a_skipped_hour_matches_nothing_and_a_repeated_hour_matches_twice() -> None:
    two_to_three = Window(
        "two",
        When(days=(6,), hours=(2 * 60, 3 * 60), timezone="Europe/Berlin"),
        capacity={"ml.p5.48xlarge": 9},
    )
    state = _state(two_to_three)
    spring = datetime(2027, 3, 28, 0, 0, tzinfo=UTC)  # 01:00 CET; 02:00 never happens
    assert all(_capacity(state, spring + timedelta(minutes=m)) == 4 for m in range(0, 180, 5))
    autumn = datetime(2027, 10, 31, 0, 0, tzinfo=UTC)  # 02:00 CEST, then 02:00 CET again
    inside = [m for m in range(0, 180, 5) if _capacity(state, autumn + timedelta(minutes=m)) == 9]
    assert inside == list(range(0, 120, 5))  # two hours of elapsed time


WINDOW_DRAWS = st.lists(
    st.tuples(
        st.frozensets(st.integers(0, 6), min_size=1).map(lambda d: tuple(sorted(d))),
        st.tuples(st.integers(0, 95), st.integers(0, 96)).map(lambda h: (h[0] * 15, h[1] * 15)),
        st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]),
        st.integers(1, 16),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(WINDOW_DRAWS, INSTANTS)
def test_the_first_matching_window_wins_and_outside_every_window_the_base_holds(
    specs: list[tuple[tuple[int, ...], tuple[int, int], str, int]], instant: datetime
) -> None:
    windows = tuple(
        Window(f"w{i}", When(days, hours, (), zone), capacity={"ml.p5.48xlarge": n})
        for i, (days, hours, zone, n) in enumerate(specs)
    )
    state = _state(*windows, strategy=Strategy.LEND_AND_BORROW)
    share = desired_at(state, instant).shares[0]
    matching = [w for w in windows if _in(w, instant)]
    if matching:
        assert share.capacity == matching[0].capacity
        assert policy_state(state, instant).windows[0].window == matching[0].name
    else:
        assert share == state.shares[0]
        assert policy_state(state, instant).windows == ()


def _in(window: Window, instant: datetime) -> bool:
    """An independent reading of a window: try each day it could have started on."""
    local = instant.astimezone(ZoneInfo(window.when.timezone)).replace(tzinfo=None)
    assert window.when.hours is not None
    start, end = window.when.hours
    length = (end - start) % (24 * 60) or 24 * 60
    for back in (0, 1):
        day = (local - timedelta(days=back)).date()
        if day.weekday() not in window.when.days:
            continue
        opens = datetime(day.year, day.month, day.day) + timedelta(minutes=start)
        if opens <= local < opens + timedelta(minutes=length):
            return True
    return False


def test_a_window_overrides_only_what_it_names() -> None:
    lend = Window("lend", When(days=(5, 6)), strategy=Strategy.LEND)
    state = _state(lend, strategy=Strategy.LEND_AND_BORROW)
    state = DesiredState(
        "demo",
        "us-east-1",
        None,
        shares=(
            ShareSpec(
                "training",
                "research",
                BASE,
                Strategy.LEND_AND_BORROW,
                borrow_limit=50,
                in_share_preemption=True,
                schedule=(lend,),
            ),
        ),
    )
    saturday = datetime(2026, 12, 5, 12, tzinfo=UTC)
    share = desired_at(state, saturday).shares[0]
    assert (share.strategy, share.borrow_limit) == (Strategy.LEND, UNLIMITED)
    assert share.in_share_preemption
    assert share.capacity == BASE
    monday = datetime(2026, 12, 7, 12, tzinfo=UTC)
    assert desired_at(state, monday).shares[0] == state.shares[0]


def test_next_change_and_combinations_name_the_weekend() -> None:
    weekend = Window("weekend", When(days=(5, 6)), capacity={"ml.p5.48xlarge": 8})
    state = _state(weekend)
    tuesday = datetime(2026, 12, 8, 9, 30, tzinfo=UTC)
    assert next_change(state, tuesday) == datetime(2026, 12, 12, tzinfo=UTC)
    found = combinations(state, tuesday)
    assert [(c.windows, c.first) for c in found] == [
        ((None,), tuesday),
        (("weekend",), datetime(2026, 12, 12, tzinfo=UTC)),
    ]


def test_a_budget_over_stops_borrowing_and_a_hard_one_disables_until_the_period_ends() -> None:
    now = datetime(2026, 12, 15, 10, tzinfo=UTC)
    for over, enabled in (("soft", True), ("hard", False)):
        budget = Budget("month", {"ml.p5.48xlarge": 100.0}, over=over)
        state = DesiredState(
            "demo",
            "us-east-1",
            None,
            shares=_state(strategy=Strategy.LEND_AND_BORROW).shares,
            teams=(TeamSpec("research", budget),),
        )
        under = desired_at(state, now, {"research": {"ml.p5.48xlarge": 99.5}})
        assert under.shares == state.shares
        assert desired_at(state, now, {}).shares == state.shares
        share = desired_at(state, now, {"research": {"ml.p5.48xlarge": 100.0}}).shares[0]
        assert (share.strategy, share.enabled) == (Strategy.LEND, enabled)
        budgets = policy_state(state, now, {"research": {"ml.p5.48xlarge": 120.0}}).budgets
        assert budgets[0].resets == datetime(2027, 1, 1, tzinfo=UTC)
