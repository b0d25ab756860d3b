"""The policy records' encoding: any window, base, budget and aging the configuration can
declare reads back as itself, in characters AWS accepts in a tag value, within 256 characters
or as a digest."""

from __future__ import annotations

from datetime import date
from typing import Any

from hypothesis import given, settings, strategies as st

from quotactl.config.desired import to_desired
from quotactl.config.schema import Config
from quotactl.core.govern.record import (
    ALLOWED,
    DIGEST,
    MAX_VALUE,
    Base,
    decode_aging,
    decode_base,
    decode_budget,
    decode_window,
    encode_aging,
    encode_base,
    encode_budget,
    encode_window,
    is_record_tag,
    sealed,
)
from quotactl.core.resources.desired import DAYS, Strategy
from quotactl.servicemodel.instance_types import training_instance_types

TYPES = sorted(training_instance_types())
ZONES = ["UTC", "Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Asia/Kolkata"]
names = st.from_regex(r"[A-Za-z0-9_-]{1,40}", fullmatch=True)
capacity = st.dictionaries(
    st.sampled_from(TYPES), st.integers(1, 2**31 - 1), min_size=1, max_size=5
)
clock = st.builds(lambda h, m: f"{h:02d}:{m:02d}", st.integers(0, 23), st.integers(0, 59))
end_clock = clock | st.just("24:00")
day = st.dates(date(2000, 1, 1), date(2100, 1, 1))
date_range = st.tuples(day, day).map(
    lambda ab: (
        f"{min(ab).isoformat()}/{max(ab).isoformat()}" if ab[0] != ab[1] else ab[0].isoformat()
    )
)
when = st.fixed_dictionaries(
    {},
    optional={
        "days": st.lists(
            st.sampled_from(DAYS)
            | st.tuples(st.sampled_from(DAYS), st.sampled_from(DAYS)).map("-".join),
            min_size=1,
            max_size=3,
        ),
        "hours": st.tuples(clock, end_clock).map("-".join),
        "dates": st.lists(date_range, min_size=1, max_size=12),
        "timezone": st.sampled_from(ZONES),
    },
)
window = st.fixed_dictionaries(
    {"name": names, "when": when},
    optional={
        "capacity": capacity,
        "sharing": st.sampled_from(["reserve", "lend", "lend_and_borrow"]),
        "borrow_limit": st.integers(0, 2**31 - 1) | st.just("unlimited"),
        "in_share_preemption": st.booleans(),
        "enabled": st.booleans(),
    },
)
hours_value = st.floats(min_value=1e-6, max_value=1e12, allow_nan=False, allow_infinity=False)
budget = st.fixed_dictionaries(
    {
        "every": st.sampled_from(["day", "week", "month"]),
        "instance_hours": st.dictionaries(
            st.sampled_from(TYPES), hours_value, min_size=1, max_size=5
        ),
    },
    optional={
        "counts": st.sampled_from(["used", "borrowed"]),
        "over": st.sampled_from(["soft", "hard"]),
    },
)
duration = st.integers(1, 10**7).map(str) | st.sampled_from(["4h", "90s", "30m", "1d"])
aging = st.fixed_dictionaries(
    {"after": duration, "every": duration},
    optional={"step": st.integers(1, 9999), "max": st.integers(1, 9999), "preempt": st.booleans()},
)


def _config(windows: list[dict[str, Any]], team_budget: dict[str, Any] | None, age: Any) -> Config:
    queue: dict[str, Any] = {"name": "training", "environment": "pool"}
    if age is not None:
        queue["aging"] = age
    team: dict[str, Any] = {
        "name": "nlp",
        "shares": [
            {
                "queue": "training",
                "capacity": {TYPES[0]: 4},
                "sharing": "lend_and_borrow",
                "schedule": windows,
            }
        ],
    }
    if team_budget is not None:
        team["budget"] = team_budget
    return Config.model_validate(
        {
            "platform": {"name": "p", "region": "us-east-1"},
            "environments": [{"name": "pool", "capacity": {TYPES[0]: 8}}],
            "queues": [queue],
            "teams": [team],
        }
    )


def _allowed(value: str) -> bool:
    return bool(ALLOWED.match(value)) and (len(value) <= MAX_VALUE or value.startswith(DIGEST))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(window, max_size=3, unique_by=lambda w: str(w["name"])),
    st.none() | budget,
    st.none() | aging,
)
def test_every_policy_the_config_declares_reads_back_from_its_record(
    windows: list[dict[str, Any]], team_budget: dict[str, Any] | None, age: Any
) -> None:
    desired = to_desired(_config(windows, team_budget, age))
    share = desired.shares[0]
    for order, spec in enumerate(share.schedule, 1):
        assert decode_window(spec.name, encode_window(spec, order)) == (order, spec)
    base = Base(
        share.capacity, share.strategy, share.borrow_limit, share.in_share_preemption, share.enabled
    )
    assert decode_base(encode_base(base)) == base
    for team in desired.teams:
        if team.budget is not None:
            assert decode_budget(encode_budget(team.budget)) == team.budget
    queue = desired.queues[0]
    if queue.aging is not None:
        assert decode_aging(encode_aging(queue.aging)) == queue.aging
    records = {k: v for spec in (share, queue) for k, v in spec.tags.items() if is_record_tag(k)}
    assert len(records) == len(windows) + (1 if windows or team_budget else 0) + (
        1 if team_budget else 0
    ) + (1 if age is not None else 0)
    assert all(_allowed(v) and len(k) <= 128 for k, v in records.items()), records


def test_a_value_over_256_characters_is_recorded_as_its_digest() -> None:
    long = "dates=" + "+".join(["2027-01-01/2027-01-02"] * 20) + " timezone=UTC"
    value = sealed(long)
    assert value.startswith(DIGEST)
    assert len(value) <= MAX_VALUE
    assert _allowed(value)
    assert sealed("timezone=UTC") == "timezone=UTC"


def test_a_record_is_deterministic() -> None:
    base = Base({TYPES[1]: 2, TYPES[0]: 1}, Strategy.LEND, -1, False, True)
    same = Base({TYPES[0]: 1, TYPES[1]: 2}, Strategy.LEND, -1, False, True)
    assert encode_base(base) == encode_base(same)
