"""The governance keys as pydantic models: shares' ``schedule`` windows, teams' ``budget``,
queues' ``aging``. Strict and closed like every model of the config language; what needs more
than one value (overlapping windows, instance types, rules in each combination of windows)
is checked in ``quotactl.config.policy_checks``.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from pydantic import Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from quotactl.config.rules_schema import Duration  # noqa: TC001 (pydantic reads it)
from quotactl.config.schema_base import INT32_MAX, Capacity, Name, Strict
from quotactl.core.resources.desired import DAYS

_DAY = "|".join(DAYS)
DAY_PATTERN = rf"^({_DAY})(-({_DAY}))?$"
_CLOCK = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
HOURS_PATTERN = rf"^{_CLOCK}-(?:{_CLOCK}|24:00)$"
_ISO_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
DATES_PATTERN = rf"^{_ISO_DATE}(/{_ISO_DATE})?$"
MAX_PRIORITY = 9999
"""The highest scheduling priority AWS Batch accepts on a service job."""

Sharing = Literal["reserve", "lend", "lend_and_borrow"]


def _zone(value: object) -> str:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if isinstance(value, str) and value and ".." not in value and not value.startswith("/"):
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            pass
        else:
            return value
    raise PydanticCustomError("timezone", "expected an IANA time zone such as UTC or Europe/Berlin")


TimeZone = Annotated[
    str,
    PlainValidator(_zone),
    WithJsonSchema(
        {"type": "string", "description": "An IANA time zone, e.g. Europe/Berlin (default UTC)."}
    ),
]


def _date_range(value: object) -> str:
    if isinstance(value, date):  # YAML reads an unquoted 2026-12-24 as a date
        return value.isoformat()
    if isinstance(value, str) and re.fullmatch(DATES_PATTERN, value):
        try:
            first, last = (date.fromisoformat(part) for part in (value.split("/") * 2)[:2])
        except ValueError:
            pass
        else:
            if first <= last:
                return value
            raise PydanticCustomError(
                "dates", "{message}", {"message": "the range ends before it starts"}
            )
    raise PydanticCustomError(
        "dates",
        "{message}",
        {"message": "expected a date (2026-12-24) or an inclusive range (2026-12-24/2027-01-01)"},
    )


DateRange = Annotated[
    str,
    PlainValidator(_date_range),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": DATES_PATTERN,
            "description": "A date, or an inclusive range FIRST/LAST (ISO 8601).",
        }
    ),
]


def _borrow_limit(value: object) -> int | Literal["unlimited"]:
    if value == "unlimited":
        return "unlimited"
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT32_MAX:
        return value
    raise PydanticCustomError(
        "borrow_limit",
        'expected a percentage (a whole number, 0 or more) or "unlimited"',
    )


BorrowLimit = Annotated[
    int | Literal["unlimited"],
    PlainValidator(_borrow_limit),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": INT32_MAX},
                {"const": "unlimited"},
            ],
            "description": "How much the share may borrow, in percent of its own capacity "
            '(per instance type), or "unlimited" (the default). lend_and_borrow only.',
        }
    ),
]


class When(Strict):
    """When a window is in force: the days it starts on, its hours, its dates, its zone."""

    days: list[Annotated[str, Field(pattern=DAY_PATTERN)]] | None = Field(
        default=None,
        min_length=1,
        description="Days the window starts on: mon..sun, or ranges such as mon-fri.",
    )
    hours: str | None = Field(
        default=None,
        pattern=HOURS_PATTERN,
        description='Local wall-clock hours, "HH:MM-HH:MM"; an end at or before the start '
        "runs into the next day.",
    )
    dates: list[DateRange] | None = Field(
        default=None, min_length=1, description="Dates or inclusive date ranges."
    )
    timezone: TimeZone = "UTC"


class Window(Strict):
    """A schedule window: while in force, it overrides the share's settings it names."""

    name: Name
    when: When
    capacity: Capacity | None = Field(
        default=None, description="Merged per instance type over the share's capacity."
    )
    sharing: Sharing | None = None
    borrow_limit: BorrowLimit | None = None
    in_share_preemption: bool | None = None
    enabled: bool | None = None


class Budget(Strict):
    """Instance-hours a team may use per UTC calendar period, per instance type."""

    every: Literal["day", "week", "month"]
    instance_hours: dict[str, Annotated[float, Field(gt=0)]] = Field(
        min_length=1, max_length=5, description="Instance-hours per type, per period."
    )
    counts: Literal["used", "borrowed"] = Field(
        default="used", description="used: every instance-hour; borrowed: only borrowed ones."
    )
    over: Literal["soft", "hard"] = Field(
        default="soft",
        description="soft: the team stops borrowing; hard: its shares are also disabled.",
    )


class Aging(Strict):
    """A boost added to a waiting job's base priority as it waits."""

    after: Duration = Field(description="How long a job waits before its first boost.")
    every: Duration = Field(description="How often the boost grows after that.")
    step: int = Field(default=1, ge=1, le=MAX_PRIORITY)
    max: int = Field(default=50, ge=1, le=MAX_PRIORITY, description="The largest boost.")
    preempt: bool = Field(
        default=False, description="Let a boost cause in-share preemption (default: never)."
    )
