"""The governance keys' checks across values, with positions: windows named twice on a share,
windows that override nothing or last no time, a window's ``borrow_limit`` without
lend_and_borrow, instance types of windows and budgets (known, and in the share's
environment), and, as warnings, windows that overlap an earlier one of the same share (the
first that matches wins, so the later one is shadowed while both match).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from quotactl.config.inventory import by_name
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from quotactl.config.inventory import Inventory, LocatedShare
    from quotactl.errors import Diagnostic

_OVERRIDES = ("capacity", "sharing", "borrow_limit", "in_share_preemption", "enabled")


def policy_findings(inventory: Inventory, now: datetime | None = None) -> list[Diagnostic]:
    """Every finding about schedules and budgets; ``now`` starts the year searched for
    overlapping windows (default: the current time)."""
    found: list[Diagnostic] = []
    for share in inventory.shares:
        found += _windows(share, inventory)
    found += _budgets(inventory)
    if inventory.complete:
        found += _overlaps(inventory, now or datetime.now(UTC))
    return found


def _windows(share: LocatedShare, inventory: Inventory) -> list[Diagnostic]:
    known = training_instance_types()
    queue = by_name(inventory.queues).get(share.item.queue)
    environment = by_name(inventory.environments).get(queue.item.environment) if queue else None
    seen: dict[str, int] = {}
    found: list[Diagnostic] = []
    for i, window in enumerate(share.item.schedule):
        at = ("schedule", i)
        earlier = seen.setdefault(window.name, i)
        if earlier != i:
            message = (
                f"window {window.name!r} is defined twice on share {share.name!r} "
                f"(first at {share.cite('schedule', earlier, 'name')})"
            )
            found.append(share.report(*at, "name", message=message))
        if all(getattr(window, key) is None for key in _OVERRIDES):
            message = (
                f"window {window.name!r} overrides nothing: give it one of {', '.join(_OVERRIDES)}"
            )
            found.append(share.report(*at, "name", message=message))
        when = window.when
        if when.days is None and when.hours is None and when.dates is None:
            message = (
                f"window {window.name!r} is always in force: give its when days, hours or dates"
            )
            found.append(share.report(*at, "when", message=message))
        if when.hours is not None:
            start, end = when.hours.split("-")
            if start == end:
                message = f"window {window.name!r} lasts no time ({when.hours})"
                found.append(share.report(*at, "when", "hours", message=message))
        sharing = window.sharing or share.item.sharing
        if window.borrow_limit is not None and sharing != "lend_and_borrow":
            message = (
                f"window {window.name!r}: borrow_limit applies only to sharing: "
                f"lend_and_borrow, and the share is {sharing} in this window"
            )
            found.append(share.report(*at, "borrow_limit", message=message, at="key"))
        for instance_type in window.capacity or {}:
            if instance_type not in known:
                message = f"{instance_type!r} is not a SageMaker training instance type"
                found.append(
                    share.report(*at, "capacity", instance_type, message=message, at="key")
                )
            elif environment and instance_type not in environment.item.capacity:
                message = (
                    f"{instance_type} is not in environment {environment.item.name!r} of queue "
                    f"{share.item.queue!r} (it has {', '.join(environment.item.capacity)})"
                )
                found.append(
                    share.report(*at, "capacity", instance_type, message=message, at="key")
                )
    return found


def _budgets(inventory: Inventory) -> list[Diagnostic]:
    known = training_instance_types()
    found: list[Diagnostic] = []
    for team in inventory.teams:
        budget = team.item.budget
        if budget is None:
            continue
        for instance_type in budget.instance_hours:
            if instance_type not in known:
                message = f"{instance_type!r} is not a SageMaker training instance type"
                found.append(
                    team.report(
                        "budget", "instance_hours", instance_type, message=message, at="key"
                    )
                )
    return found


def _overlaps(inventory: Inventory, now: datetime) -> list[Diagnostic]:
    from quotactl.config.desired import window_of
    from quotactl.core.govern.windows import HORIZON, boundaries, matches

    found: list[Diagnostic] = []
    for share in inventory.shares:
        windows = [window_of(w) for w in share.item.schedule]
        if len(windows) < 2:
            continue
        instants = [now, *boundaries(windows, now, now + HORIZON)]
        reported: set[int] = set()
        for instant in instants:
            matching = [i for i, w in enumerate(windows) if matches(w.when, instant)]
            for later in matching[1:]:
                if later in reported:
                    continue
                reported.add(later)
                first = windows[matching[0]].name
                when = instant.strftime("%Y-%m-%dT%H:%MZ")
                message = (
                    f"window {windows[later].name!r} overlaps window {first!r}, which comes "
                    f"first and wins (both match at {when})"
                )
                found.append(
                    share.report("schedule", later, "name", message=message, severity="warning")
                )
    return found
