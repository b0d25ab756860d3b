"""The stack's policy definitions, recorded as tags on the resources they belong to.

``apply`` writes them like any other managed tag, so the account keeps a trace of each
schedule window, budget and aging: ``plan`` compares them with the configuration (a pull
request that edits a weekend window shows on a Tuesday), and ``export`` gives them back, with
a share's base settings while a window is in force.

- ``quotactl:window:<name>`` on a share, one per window: its ``when`` and its overrides;
- ``quotactl:base`` on a share with a schedule or a budget: its settings without any window
  or budget state;
- ``quotactl:budget-rule`` on each share of a team with a budget;
- ``quotactl:aging`` on a queue with aging.

A value is space-separated ``key=value`` pairs in a fixed order, lists joined with ``+``,
capacities as ``type:count``, using only characters AWS accepts in a tag value under every
reading of its rules (letters, digits, space and ``_ . : / = + - @``). A value longer than
AWS's 256 characters is recorded as ``sha256=<hex>`` of it: a change is still seen, but the
policy cannot be read back.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.resources.desired import (
    DAYS,
    UNLIMITED,
    Aging,
    Budget,
    Strategy,
    When,
    Window,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.resources.desired import QueueSpec, ShareSpec

WINDOW_TAG_PREFIX = "quotactl:window:"
BASE_TAG = "quotactl:base"
BUDGET_RULE_TAG = "quotactl:budget-rule"
AGING_TAG = "quotactl:aging"
RECORD_TAGS = (BASE_TAG, BUDGET_RULE_TAG, AGING_TAG)
MAX_VALUE = 256
MAX_KEY = 128
MAX_WINDOW_NAME = MAX_KEY - len(WINDOW_TAG_PREFIX)
DIGEST = "sha256="
ALLOWED = re.compile(r"^[A-Za-z0-9 _.:/=+\-@]*$")


def is_record_tag(key: str) -> bool:
    """Whether ``key`` is one of the policy record tags."""
    return key in RECORD_TAGS or key.startswith(WINDOW_TAG_PREFIX)


@dataclass(frozen=True)
class Base:
    """A share's settings without any window or budget state (what a window overrides)."""

    capacity: Mapping[str, int]
    strategy: Strategy
    borrow_limit: int
    in_share_preemption: bool
    enabled: bool


# -- values ---------------------------------------------------------------------------------


def _number(value: float) -> str:
    text = repr(float(value)).replace("e+", "e")
    return text[:-2] if text.endswith(".0") else text


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _read_bool(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(f"{text!r} is not true or false")
    return text == "true"


def _limit(value: int) -> str:
    return "unlimited" if value == UNLIMITED else str(value)


def _read_limit(text: str) -> int:
    return UNLIMITED if text == "unlimited" else int(text)


def _pairs(mapping: Mapping[str, float]) -> str:
    return "+".join(f"{key}:{_number(mapping[key])}" for key in sorted(mapping))


def _read_counts(text: str) -> dict[str, int]:
    return {k: int(v) for k, v in (p.rsplit(":", 1) for p in text.split("+"))}


def _read_floats(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (p.rsplit(":", 1) for p in text.split("+"))}


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _read_clock(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _join(pairs: list[tuple[str, str]]) -> str:
    return " ".join(f"{key}={value}" for key, value in pairs)


def _split(value: str) -> dict[str, str]:
    if value.startswith(DIGEST):
        raise ValueError("a digest cannot be read back")
    found: dict[str, str] = {}
    for part in value.split(" "):
        key, sep, text = part.partition("=")
        if not sep or key in found:
            raise ValueError(f"{part!r} is not a key=value pair")
        found[key] = text
    return found


def sealed(value: str) -> str:
    """``value`` as recorded: itself when AWS takes it, else its digest."""
    if len(value) <= MAX_VALUE:
        return value
    return DIGEST + hashlib.sha256(value.encode()).hexdigest()


def is_digest(value: str) -> bool:
    return value.startswith(DIGEST)


# -- windows ---------------------------------------------------------------------------------


def _when_pairs(when: When) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    if when.days:
        pairs.append(("days", "+".join(DAYS[d] for d in when.days)))
    if when.hours is not None:
        pairs.append(("hours", f"{_clock(when.hours[0])}-{_clock(when.hours[1])}"))
    if when.dates:
        pairs.append(("dates", "+".join(f"{a.isoformat()}/{b.isoformat()}" for a, b in when.dates)))
    pairs.append(("timezone", when.timezone))
    return pairs


def encode_window(window: Window, order: int) -> str:
    """A window's place in its share's schedule (1: first; the first that matches wins), its
    ``when`` and overrides, one line (before sealing)."""
    pairs = [("order", str(order)), *_when_pairs(window.when)]
    if window.capacity:
        pairs.append(("capacity", _pairs(window.capacity)))
    if window.strategy is not None:
        pairs.append(("sharing", window.strategy.value.lower()))
    if window.borrow_limit is not None:
        pairs.append(("borrow_limit", _limit(window.borrow_limit)))
    if window.in_share_preemption is not None:
        pairs.append(("in_share_preemption", _bool(window.in_share_preemption)))
    if window.enabled is not None:
        pairs.append(("enabled", _bool(window.enabled)))
    return _join(pairs)


def decode_window(name: str, value: str) -> tuple[int, Window]:
    """The place and window a record holds; ValueError when it holds none (a digest, or
    damaged)."""
    from datetime import date

    fields = _split(value)
    order = int(fields["order"])
    days = tuple(DAYS.index(d) for d in fields["days"].split("+")) if "days" in fields else ()
    hours = None
    if "hours" in fields:
        start, end = fields["hours"].split("-")
        hours = (_read_clock(start), _read_clock(end))
    dates = (
        tuple(
            (date.fromisoformat(a), date.fromisoformat(b))
            for a, b in (r.split("/") for r in fields["dates"].split("+"))
        )
        if "dates" in fields
        else ()
    )
    when = When(days=days, hours=hours, dates=dates, timezone=fields["timezone"])
    return order, Window(
        name=name,
        when=when,
        capacity=_read_counts(fields["capacity"]) if "capacity" in fields else None,
        strategy=Strategy(fields["sharing"].upper()) if "sharing" in fields else None,
        borrow_limit=_read_limit(fields["borrow_limit"]) if "borrow_limit" in fields else None,
        in_share_preemption=(
            _read_bool(fields["in_share_preemption"]) if "in_share_preemption" in fields else None
        ),
        enabled=_read_bool(fields["enabled"]) if "enabled" in fields else None,
    )


# -- base, budget, aging ---------------------------------------------------------------------


def base_of(share: ShareSpec) -> Base:
    return Base(
        dict(share.capacity),
        share.strategy,
        share.borrow_limit,
        share.in_share_preemption,
        share.enabled,
    )


def encode_base(base: Base) -> str:
    return _join(
        [
            ("capacity", _pairs(base.capacity)),
            ("sharing", base.strategy.value.lower()),
            ("borrow_limit", _limit(base.borrow_limit)),
            ("in_share_preemption", _bool(base.in_share_preemption)),
            ("enabled", _bool(base.enabled)),
        ]
    )


def decode_base(value: str) -> Base:
    fields = _split(value)
    return Base(
        _read_counts(fields["capacity"]),
        Strategy(fields["sharing"].upper()),
        _read_limit(fields["borrow_limit"]),
        _read_bool(fields["in_share_preemption"]),
        _read_bool(fields["enabled"]),
    )


def encode_budget(budget: Budget) -> str:
    return _join(
        [
            ("every", budget.every),
            ("counts", budget.counts),
            ("over", budget.over),
            ("instance_hours", _pairs(budget.instance_hours)),
        ]
    )


def decode_budget(value: str) -> Budget:
    fields = _split(value)
    return Budget(
        every=fields["every"],
        instance_hours=_read_floats(fields["instance_hours"]),
        counts=fields["counts"],
        over=fields["over"],
    )


def encode_aging(aging: Aging) -> str:
    return _join(
        [
            ("after", _number(aging.after)),
            ("every", _number(aging.every)),
            ("step", str(aging.step)),
            ("max", str(aging.max)),
            ("preempt", _bool(aging.preempt)),
        ]
    )


def decode_aging(value: str) -> Aging:
    fields = _split(value)
    return Aging(
        after=float(fields["after"]),
        every=float(fields["every"]),
        step=int(fields["step"]),
        max=int(fields["max"]),
        preempt=_read_bool(fields["preempt"]),
    )


# -- the tags of a resource ------------------------------------------------------------------


def share_records(share: ShareSpec, budget: Budget | None) -> dict[str, str]:
    """The record tags of ``share`` (its configured settings, windows and team budget)."""
    tags = {
        WINDOW_TAG_PREFIX + window.name: sealed(encode_window(window, order))
        for order, window in enumerate(share.schedule, 1)
    }
    if share.schedule or budget is not None:
        tags[BASE_TAG] = sealed(encode_base(base_of(share)))
    if budget is not None:
        tags[BUDGET_RULE_TAG] = sealed(encode_budget(budget))
    return tags


def queue_records(queue: QueueSpec) -> dict[str, str]:
    """The record tags of ``queue`` (its aging)."""
    return {AGING_TAG: sealed(encode_aging(queue.aging))} if queue.aging is not None else {}


def record_count(share: ShareSpec, budget: Budget | None) -> int:
    """How many record tags ``share`` carries."""
    return len(share.schedule) + (1 if share.schedule or budget else 0) + (1 if budget else 0)
