"""``rules:`` in config files as pydantic models: one model per check, told apart by ``check``.

Every rule has a ``name`` (unique across the files), a ``level`` and a ``check``; the other
keys are the check's parameters, and a key another check takes is an unknown key here.
Rules are data: every value is a number, a string, a list or a mapping, never code.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator, TypeAdapter, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from quotactl.config.schema_base import INT32_MAX, Capacity, Name, Strict, TagKey
from quotactl.core.durations import DurationError, parse_duration

Level = Literal["advisory", "soft", "hard"]
Percent = Annotated[int, Field(ge=0, le=100, description="Percent, 0 to 100.")]


def _duration(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except DurationError:
            pass
    raise PydanticCustomError(
        "rule_duration", "expected a duration such as 90s, 30m, 2h or 1d, or plain seconds"
    )


Duration = Annotated[
    float,
    PlainValidator(_duration),
    WithJsonSchema(
        {
            "anyOf": [{"type": "string"}, {"type": "number", "minimum": 0}],
            "description": "A duration: 90s, 30m, 2h, 1d, 1h30m, or plain seconds.",
        }
    ),
]


class _Rule(Strict):
    name: Name = Field(description="Unique across the config; --override NAME names it.")
    level: Level = Field(
        description="advisory: reported only; soft: fails the command unless --override NAME; "
        "hard: always fails it."
    )


class _Targeted(_Rule):
    """A rule about one team (its shares on every queue) or one share."""

    team: Name | None = Field(default=None, description="A team of the config.")
    share: str | None = Field(
        default=None,
        pattern=r"^([A-Za-z0-9_-]{1,128}/)?[A-Za-z0-9_-]{1,128}$",
        description="A share: queue/name, or its name when only one queue has it.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> Any:
        if (self.team is None) == (self.share is None):
            raise PydanticCustomError("rule_target", "give exactly one of team or share")
        return self


class CapacityWithinEnvironment(_Rule):
    """Per environment and instance type, the shares' limits add up to at most its capacity."""

    check: Literal["capacity_within_environment"]


class MinCapacity(_Targeted):
    """A share's limit, or a team's limits summed over its shares, is at least this."""

    check: Literal["min_capacity"]
    capacity: Capacity


class MaxCapacity(_Targeted):
    """A share's limit, or a team's limits summed over its shares, is at most this."""

    check: Literal["max_capacity"]
    capacity: Capacity


class MaxReserveFraction(_Rule):
    """Per environment and instance type, at most this percent of capacity held RESERVE."""

    check: Literal["max_reserve_fraction"]
    value: Percent


class MaxBorrowLimit(_Rule):
    """Every lend_and_borrow share's borrow limit is at most this percent."""

    check: Literal["max_borrow_limit"]
    value: int = Field(ge=0, le=INT32_MAX, description="Percent of the share's own limits.")
    allow_unlimited: bool = Field(default=False, description="Accept borrow_limit: unlimited.")


class RequiredTags(_Rule):
    """Every share carries each of these tag keys (from its team's tags or the platform's)."""

    check: Literal["required_tags"]
    keys: list[TagKey] = Field(min_length=1, max_length=50)


class MaxDisruption(_Rule):
    """A plan terminates or exposes to preemption at most this many jobs holding instances."""

    check: Literal["max_disruption"]
    jobs: int = Field(ge=0, le=INT32_MAX)


class MaxWait(_Targeted):
    """In a simulation, the wait (first start - submit) of every share named stays within."""

    check: Literal["max_wait"]
    p95: Duration | None = None
    mean: Duration | None = None

    @model_validator(mode="after")
    def _a_bound(self) -> Any:
        if self.p95 is None and self.mean is None:
            raise PydanticCustomError("rule_bound", "give p95, mean or both")
        return self


class MaxPreemptions(_Targeted):
    """In a simulation, preemptions (and work lost) summed over the shares named stay within."""

    check: Literal["max_preemptions"]
    count: int | None = Field(default=None, ge=0, le=INT32_MAX)
    work_lost: float | None = Field(default=None, ge=0, description="Instance-hours.")

    @model_validator(mode="after")
    def _a_bound(self) -> Any:
        if self.count is None and self.work_lost is None:
            raise PydanticCustomError("rule_bound", "give count, work_lost or both")
        return self


RULE_MODELS: dict[str, type[_Rule]] = {
    "capacity_within_environment": CapacityWithinEnvironment,
    "min_capacity": MinCapacity,
    "max_capacity": MaxCapacity,
    "max_reserve_fraction": MaxReserveFraction,
    "max_borrow_limit": MaxBorrowLimit,
    "required_tags": RequiredTags,
    "max_disruption": MaxDisruption,
    "max_wait": MaxWait,
    "max_preemptions": MaxPreemptions,
}
"""Each check's model, by the name written in ``check:``."""

RuleEntry = Annotated[
    CapacityWithinEnvironment
    | MinCapacity
    | MaxCapacity
    | MaxReserveFraction
    | MaxBorrowLimit
    | RequiredTags
    | MaxDisruption
    | MaxWait
    | MaxPreemptions,
    Field(discriminator="check"),
]
AnyRule = (
    CapacityWithinEnvironment
    | MinCapacity
    | MaxCapacity
    | MaxReserveFraction
    | MaxBorrowLimit
    | RequiredTags
    | MaxDisruption
    | MaxWait
    | MaxPreemptions
)


@functools.cache
def rule_adapter() -> TypeAdapter[AnyRule]:
    """A validator of one rule (built on first use: only a file that fails needs it)."""
    return TypeAdapter(RuleEntry)
