"""The one timing model and its spelling in QUOTACTL_EMULATOR_TIMING."""

from __future__ import annotations

import pytest

from quotactl.core.engine import TIMING, Timing, parse_timing
from quotactl.errors import UsageError


def test_the_default_model_names_every_window() -> None:
    assert parse_timing(None) == TIMING
    assert (TIMING.scheduled_seconds, TIMING.starting_seconds) == (5.0, 30.0)
    assert (TIMING.preemption_seconds, TIMING.termination_seconds) == (20.0, 120.0)


def test_items_left_out_keep_the_default() -> None:
    assert parse_timing("preemption=3") == Timing(5.0, 30.0, True, 3.0, 120.0)
    assert parse_timing("scheduled=0,starting=0,preemption=0,termination=0") == Timing(
        0.0, 0.0, True, 0.0, 0.0
    )
    assert parse_timing(" termination = 7.5 ").termination_seconds == 7.5


@pytest.mark.parametrize(
    "spec", ["preemption=-1", "termination=x", "stopping=3", "preemption=inf", "starting=nan"]
)
def test_a_bad_item_is_named(spec: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_timing(spec)
    assert spec.split(",")[0] in str(caught.value)
    assert "preemption=SECONDS" in (caught.value.hint or "")
