"""A governor cycle's decision: what it changes, what it holds back, what it leaves alone, and
that a second cycle over its own result does nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import given, settings, strategies as st

from quotactl.config.load import load_config
from quotactl.core.govern import (
    BASE_PRIORITY_TAG,
    GOVERNED_TAG,
    GovernedJob,
    GovernedShare,
    decide,
    read_budget_tag,
    read_governed_tag,
)
from quotactl.core.resources.attributes import attributes
from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from quotactl.core.govern import Action
    from quotactl.core.resources.desired import DesiredState, ShareSpec

GOVERNED = Path(__file__).resolve().parents[2] / "configs" / "examples" / "governed"
P5 = "ml.p5.48xlarge"
SATURDAY = datetime(2026, 12, 12, 10, tzinfo=UTC)
MONDAY = datetime(2026, 12, 14, 10, tzinfo=UTC)


def desired() -> DesiredState:
    return load_config([GOVERNED]).desired


def live(state: DesiredState, **in_use: int) -> list[GovernedShare]:
    return [GovernedShare(s, {P5: in_use.get(s.name, 0)}) for s in state.shares]


def applied(shares: list[GovernedShare], actions: tuple[Action, ...]) -> list[GovernedShare]:
    """The live shares after a cycle's share actions, as the account would hold them."""
    by_address = {a.address: a for a in actions if a.kind == "update-share"}
    out = []
    for share in shares:
        action = by_address.get(share.spec.address)
        if action is not None:
            share = replace(share, spec=_with(share.spec, action))
        out.append(share)
    return out


def _with(spec: ShareSpec, action: Action) -> ShareSpec:
    after: dict[str, Any] = dict(action.after)
    tags = {k: v for k, v in spec.tags.items() if k not in action.untag}
    tags.update(action.tags)
    sharing = after.get("sharing")
    strategy = Strategy(sharing.upper()) if sharing else spec.strategy
    limit = after.get("borrow_limit", spec.borrow_limit if "sharing" not in after else None)
    return replace(
        spec,
        capacity=after.get("capacity", spec.capacity),
        strategy=strategy,
        borrow_limit=UNLIMITED if limit in (None, "unlimited") else int(limit),
        in_share_preemption=after.get("in_share_preemption", spec.in_share_preemption),
        enabled=after.get("enabled", spec.enabled),
        tags=tags,
    )


def test_a_window_is_applied_tagged_until_its_end_and_restored_after() -> None:
    state = desired()
    weekend = decide(state, SATURDAY, live(state))
    [action] = weekend.actions
    assert (action.policy, action.address) == ("schedule:weekend", "share.training/research")
    assert action.after == {"capacity": {P5: 8}}
    # Sunday ends at midnight in Berlin: 23:00 UTC in winter
    assert read_governed_tag(action.tags[GOVERNED_TAG])[1] == datetime(2026, 12, 13, 23, tzinfo=UTC)
    shares = applied(live(state), weekend.actions)
    assert decide(state, SATURDAY + timedelta(hours=1), shares).actions == ()
    [restore] = decide(state, MONDAY, shares).actions
    assert restore.after == {"capacity": {P5: 4}}
    assert restore.untag == (GOVERNED_TAG,)
    assert decide(state, MONDAY, applied(shares, (restore,))).actions == ()


def test_a_restore_that_would_disrupt_goes_as_far_as_the_running_jobs_allow() -> None:
    state = desired()
    shares = applied(live(state), decide(state, SATURDAY, live(state)).actions)
    busy = [replace(s, in_use={P5: 6 if s.spec.name == "research" else 0}) for s in shares]
    [held] = decide(state, MONDAY, busy).actions
    assert held.blocked
    assert held.after == {"capacity": {P5: 6}}
    assert held.target == {"capacity": {P5: 4}}
    assert held.tags[GOVERNED_TAG] == "schedule:weekend restoring"
    [now_all] = decide(state, MONDAY, busy, allow_disruption=True).actions
    assert now_all.after == {"capacity": {P5: 4}}
    assert not now_all.blocked


def test_drift_no_policy_explains_is_reported_and_left_alone() -> None:
    state = desired()
    drifted = [
        GovernedShare(replace(s, capacity={P5: 5})) if s.name == "nlp" else GovernedShare(s)
        for s in state.shares
    ]
    decision = decide(state, MONDAY, drifted)
    assert decision.actions == ()
    assert [(d.address, d.field, d.live) for d in decision.drift] == [
        ("share.training/nlp", "capacity", {P5: 5})
    ]


def test_a_hard_budget_stops_borrowing_and_disables_and_a_soft_one_only_stops_borrowing() -> None:
    state = desired()
    nights = datetime(2026, 12, 14, 22, tzinfo=UTC)  # Monday night in Berlin: borrowing
    shares = applied(live(state), decide(state, nights, live(state)).actions)
    assert shares[1].spec.strategy is Strategy.LEND_AND_BORROW
    over = {"research": {P5: 2001.0}}
    [soft] = decide(state, nights, shares, usage=over).actions
    assert soft.policy == "budget"
    assert soft.after == {"sharing": "lend", "borrow_limit": None}
    hard_teams = tuple(
        replace(t, budget=replace(t.budget, over="hard")) if t.budget else t for t in state.teams
    )
    [hard] = decide(replace(state, teams=hard_teams), nights, shares, usage=over).actions
    assert hard.after == {"sharing": "lend", "borrow_limit": None, "enabled": False}
    # tagged until the first change of reason: the night window's end (08:00 in Berlin) ...
    morning = datetime(2026, 12, 15, 7, tzinfo=UTC)
    assert read_governed_tag(hard.tags[GOVERNED_TAG])[1] == morning
    # ... then until the budget's reset, the disable kept
    disabled = applied(shares, (hard,))
    [retag] = decide(replace(state, teams=hard_teams), morning, disabled, usage=over).actions
    assert retag.after == {}
    assert read_governed_tag(retag.tags[GOVERNED_TAG])[1] == datetime(2027, 1, 1, tzinfo=UTC)


def test_the_budget_tag_carries_the_figures_in_steps_of_one_percent() -> None:
    state = desired()
    tags = decide(state, MONDAY, live(state), usage={"research": {P5: 1523.7}}).budget_tags
    figures = read_budget_tag(tags["share.training/research"])
    assert figures is not None
    assert figures.used == {P5: (1520.0, 2000.0)}
    tagged = [
        replace(s, spec=replace(s.spec, tags={**s.spec.tags, "quotactl:budget": tags[a]}))
        if (a := s.spec.address) in tags
        else s
        for s in live(state)
    ]
    assert decide(state, MONDAY, tagged, usage={"research": {P5: 1529.0}}).budget_tags == {}


def test_aging_raises_a_waiting_job_by_a_step_an_hour_after_four_hours() -> None:
    state = desired()
    job = GovernedJob(
        "j1",
        "training",
        "research",
        JobStatus.RUNNABLE,
        5,
        MONDAY - timedelta(hours=7),
        runnable_since=MONDAY - timedelta(hours=7),
    )
    [action] = decide(state, MONDAY, live(state), [job]).actions
    assert action.after == {"priority": 8}
    assert action.tags == {BASE_PRIORITY_TAG: "5"}
    raised = replace(job, priority=8, base_priority=5)
    assert decide(state, MONDAY + timedelta(minutes=59), live(state), [raised]).actions == ()
    [later] = decide(state, MONDAY + timedelta(hours=1), live(state), [raised]).actions
    assert later.after == {"priority": 9}
    assert later.tags == {}


def test_aging_never_raises_a_job_above_the_lowest_running_in_a_preempting_share() -> None:
    state = desired()
    shares = [replace(s, spec=replace(s.spec, in_share_preemption=True)) for s in live(state)]
    waiting = GovernedJob(
        "w",
        "training",
        "research",
        JobStatus.RUNNABLE,
        1,
        MONDAY - timedelta(hours=30),
        runnable_since=MONDAY - timedelta(hours=30),
    )
    running = GovernedJob("r", "training", "research", JobStatus.RUNNING, 10, MONDAY)
    [action] = decide(state, MONDAY, shares, [waiting, running]).actions
    assert action.after == {"priority": 10}


INSTANTS = st.datetimes(
    min_value=datetime(2026, 1, 1), max_value=datetime(2028, 12, 31), timezones=st.just(UTC)
)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.tuples(INSTANTS, st.floats(0, 3000)), min_size=1, max_size=6),
    hard=st.booleans(),
)
def test_a_cycle_over_its_own_result_does_nothing_and_base_settings_come_back(
    steps: list[tuple[datetime, float]], hard: bool
) -> None:
    """Any sequence of cycles at any instants and usages (nothing running): right after a
    cycle, a second one at the same instant does nothing, and the shares always hold exactly
    the settings in force then; with no policy in force they are the configuration's."""
    state = desired()
    if hard:
        teams = tuple(
            replace(t, budget=replace(t.budget, over="hard")) if t.budget else t
            for t in state.teams
        )
        state = replace(state, teams=teams)
    shares = live(state)
    for now, hours in sorted(steps):
        usage = {"research": {P5: hours}}
        shares = applied(shares, decide(state, now, shares, usage=usage).actions)
        again = decide(state, now, shares, usage=usage)
        assert again.actions == ()
        from quotactl.core.govern import desired_at

        wanted = {s.address: attributes(s) for s in desired_at(state, now, usage).shares}
        for share in shares:
            have = attributes(share.spec)
            want = wanted[share.spec.address]
            assert {k: have[k] for k in have if k != "tags"} == {
                k: want[k] for k in want if k != "tags"
            }
            assert (GOVERNED_TAG in share.spec.tags) == (
                {k: want[k] for k in want if k != "tags"}
                != {k: v for k, v in attributes(_base(state, share)).items() if k != "tags"}
            )


def _base(state: DesiredState, share: GovernedShare) -> ShareSpec:
    return next(s for s in state.shares if s.address == share.spec.address)
