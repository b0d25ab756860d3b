"""The ``quotactl:budget`` tag rounds hours down to 1 % of the limit, never a step too low."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, strategies as st

from quotactl.core.govern.cycle import budget_tag, read_budget_tag

RESETS = datetime(2030, 1, 4, tzinfo=UTC)


@given(limit=st.integers(1, 100_000), percent=st.integers(0, 100))
def test_hours_on_a_whole_percent_read_back_as_that_percent(limit: int, percent: int) -> None:
    hours = limit * percent / 100
    figures = read_budget_tag(budget_tag("soft", RESETS, {"ml.p5.48xlarge": (hours, limit)}))
    assert figures is not None
    counted, allowed = figures.used["ml.p5.48xlarge"]
    assert allowed == limit
    assert round(counted * 100 / limit) == percent
    assert abs(counted - hours) <= limit / 100 / 2


def test_one_hour_of_two_is_one() -> None:
    tag = budget_tag("hard", RESETS, {"ml.p5.48xlarge": (1.0, 2.0)})
    assert tag == "hard resets=2030-01-04T00:00:00Z ml.p5.48xlarge=1/2"


def test_a_tag_left_on_a_restored_share_is_removed() -> None:
    """A governor stopped between restoring a share and removing its tag: the next cycle
    removes the tag and changes nothing else."""
    from dataclasses import replace

    from quotactl.core.govern import GOVERNED_TAG, GovernedShare, decide
    from quotactl.core.resources.desired import DesiredState, ShareSpec, Strategy

    config = ShareSpec(
        queue="q",
        name="s",
        capacity={"ml.p5.48xlarge": 1},
        strategy=Strategy.LEND,
        tags={"quotactl:stack": "st"},
    )
    desired = DesiredState(stack="st", region="us-east-1", account_id=None, shares=(config,))
    live = replace(config, tags={**config.tags, GOVERNED_TAG: "schedule:weekend until=2030-01-07"})
    decision = decide(desired, RESETS, [GovernedShare(live)])
    [action] = decision.actions
    assert action.untag == (GOVERNED_TAG,)
    assert dict(action.after) == {}
    assert decide(desired, RESETS, [GovernedShare(config)]).actions == ()
