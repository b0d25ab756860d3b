"""``export``'s policies, given back from the records apply wrote (``core.govern.record``):
a share's base settings (not a window's in force), its schedule, its team's budget, its
queue's aging; a record that cannot be read back, or a governed share without records, is a
warning."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.govern.record import (
    AGING_TAG,
    BASE_TAG,
    BUDGET_RULE_TAG,
    WINDOW_TAG_PREFIX,
    decode_aging,
    decode_base,
    decode_budget,
    decode_window,
)
from quotactl.core.resources.desired import DAYS, UNLIMITED

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from quotactl.core.resources.desired import QueueSpec, ShareSpec, Window
    from quotactl.core.resources.observed import ObservedResource


def _unreadable(address: str, policy: str, warnings: list[str]) -> None:
    warnings.append(
        f"{address}: the record of its {policy} cannot be read back (longer than a tag holds, "
        "recorded as a digest): it is not exported, a plan would remove it; add it by hand"
    )


def warn_unrecorded(
    shares: Sequence[ObservedResource], governed: Mapping[str, str], warnings: list[str]
) -> None:
    for r in sorted(shares, key=lambda r: r.address):
        policy = governed.get(r.address)
        if policy and BASE_TAG not in r.spec.tags:
            warnings.append(
                f"{r.address}: {policy} is in force and the share has no record of its base "
                "settings (applied by an older quotactl): the settings exported are the "
                "policy's, not the share's own"
            )


def based(spec: ShareSpec, warnings: list[str]) -> ShareSpec:
    """``spec`` with the base settings its record holds (a window in force is not exported as
    the share's own settings)."""
    from dataclasses import replace

    value = spec.tags.get(BASE_TAG)
    if value is None:
        return spec
    try:
        base = decode_base(value)
    except (ValueError, KeyError, IndexError):
        _unreadable(spec.address, "base settings", warnings)
        return spec
    return replace(
        spec,
        capacity=base.capacity,
        strategy=base.strategy,
        borrow_limit=base.borrow_limit,
        in_share_preemption=base.in_share_preemption,
        enabled=base.enabled,
    )


def schedule(spec: ShareSpec, warnings: list[str]) -> list[dict[str, Any]]:
    found: list[tuple[int, dict[str, Any]]] = []
    for key in sorted(spec.tags):
        if not key.startswith(WINDOW_TAG_PREFIX):
            continue
        name = key.removeprefix(WINDOW_TAG_PREFIX)
        try:
            order, window = decode_window(name, spec.tags[key])
        except (ValueError, KeyError, IndexError):
            _unreadable(spec.address, f"window {name}", warnings)
            continue
        found.append((order, _window(window)))
    return [document for _, document in sorted(found, key=lambda pair: pair[0])]


def _window(window: Window) -> dict[str, Any]:
    when: dict[str, Any] = {}
    if window.when.days:
        when["days"] = [DAYS[d] for d in window.when.days]
    if window.when.hours is not None:
        start, end = window.when.hours
        when["hours"] = f"{start // 60:02d}:{start % 60:02d}-{end // 60:02d}:{end % 60:02d}"
    if window.when.dates:
        when["dates"] = [
            first.isoformat() if first == last else f"{first.isoformat()}/{last.isoformat()}"
            for first, last in window.when.dates
        ]
    if window.when.timezone != "UTC":
        when["timezone"] = window.when.timezone
    out: dict[str, Any] = {"name": window.name, "when": when}
    if window.capacity:
        out["capacity"] = dict(sorted(window.capacity.items()))
    if window.strategy is not None:
        out["sharing"] = window.strategy.value.lower()
    if window.borrow_limit is not None:
        out["borrow_limit"] = (
            "unlimited" if window.borrow_limit == UNLIMITED else window.borrow_limit
        )
    if window.in_share_preemption is not None:
        out["in_share_preemption"] = window.in_share_preemption
    if window.enabled is not None:
        out["enabled"] = window.enabled
    return out


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def budget(members: Sequence[ShareSpec], warnings: list[str]) -> dict[str, Any] | None:
    recorded = [s for s in members if BUDGET_RULE_TAG in s.tags]
    if not recorded:
        return None
    try:
        budget = decode_budget(recorded[0].tags[BUDGET_RULE_TAG])
    except (ValueError, KeyError, IndexError):
        _unreadable(recorded[0].address, "team's budget", warnings)
        return None
    return {
        "every": budget.every,
        "instance_hours": {k: _number(v) for k, v in sorted(budget.instance_hours.items())},
        "counts": budget.counts,
        "over": budget.over,
    }


def aging(spec: QueueSpec, warnings: list[str]) -> dict[str, Any] | None:
    value = spec.tags.get(AGING_TAG)
    if value is None:
        return None
    try:
        aging = decode_aging(value)
    except (ValueError, KeyError, IndexError):
        _unreadable(spec.address, "aging", warnings)
        return None
    return {
        "after": _number(aging.after),
        "every": _number(aging.every),
        "step": aging.step,
        "max": aging.max,
        "preempt": aging.preempt,
    }
