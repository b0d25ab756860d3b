"""Schedule windows on the wall clock: which window of a share is in force at an instant, when
that changes, and which combinations of windows occur over a span of time.

Membership is tested on the local wall-clock time of each instant in the window's zone
(``zoneinfo``): a local time skipped by a daylight-saving change matches nothing, a repeated
hour matches twice. Windows have minute resolution, so membership can change only where the
local clock reaches a window's start, its end or midnight, or where the zone's offset jumps;
``boundaries`` lists those instants, and between two of them nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from quotactl.core.resources.desired import DesiredState, ShareSpec, When, Window

DAY_MINUTES = 24 * 60
HORIZON = timedelta(days=366)
"""How far ahead validate looks for combinations of windows, and ``next_change`` for a change."""


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def _day_qualifies(when: When, day: date) -> bool:
    if when.days and day.weekday() not in when.days:
        return False
    return not when.dates or any(first <= day <= last for first, last in when.dates)


def matches(when: When, instant: datetime) -> bool:
    """Whether ``instant`` (aware) falls in ``when``, on the wall clock of its zone."""
    local = instant.astimezone(zone(when.timezone))
    day = local.date()
    if when.hours is None:
        return _day_qualifies(when, day)
    minute = local.hour * 60 + local.minute
    start, end = when.hours
    if start < end:
        return start <= minute < end and _day_qualifies(when, day)
    # crosses midnight (or runs a whole day from start): the evening of the day it starts,
    # then the morning of the next day
    if minute >= start and _day_qualifies(when, day):
        return True
    return minute < end and _day_qualifies(when, day - timedelta(days=1))


def window_in_force(share: ShareSpec, instant: datetime) -> Window | None:
    """The first of the share's windows that matches ``instant``, or None (the base)."""
    for window in share.schedule:
        if matches(window.when, instant):
            return window
    return None


def _local_boundaries(when: When, start: datetime, end: datetime) -> set[datetime]:
    """Instants in [start, end) where the local clock of ``when``'s zone reaches a start, an
    end or midnight, or where the zone's offset changes."""
    tz = zone(when.timezone)
    clocks = {0}
    if when.hours is not None:
        clocks |= {when.hours[0] % DAY_MINUTES, when.hours[1] % DAY_MINUTES}
    found: set[datetime] = set()
    first = start.astimezone(tz).date() - timedelta(days=1)
    last = end.astimezone(tz).date() + timedelta(days=1)
    day = first
    while day <= last:
        for minute in clocks:
            naive = datetime.combine(day, time(minute // 60, minute % 60))
            for fold in (0, 1):
                found.add(naive.replace(tzinfo=tz, fold=fold).astimezone(UTC))
        day += timedelta(days=1)
    found |= _offset_changes(tz, start, end)
    return {instant for instant in found if start <= instant < end}


def _offset_changes(tz: ZoneInfo, start: datetime, end: datetime) -> set[datetime]:
    """The instants in [start, end) where ``tz``'s UTC offset changes (to the minute)."""
    changes: set[datetime] = set()
    step = timedelta(hours=1)
    here = start.replace(second=0, microsecond=0)
    before = here.astimezone(tz).utcoffset()
    while here < end:
        after_instant = here + step
        after = after_instant.astimezone(tz).utcoffset()
        if after != before:
            low, high = here, after_instant  # offset(low) == before != offset(high)
            while high - low > timedelta(minutes=1):
                middle = low + (high - low) / 2
                middle = middle.replace(second=0, microsecond=0)
                if middle.astimezone(tz).utcoffset() == before:
                    low = middle
                else:
                    high = middle
            changes.add(high)
        here, before = after_instant, after
    return changes


def boundaries(windows: Iterable[Window], start: datetime, end: datetime) -> list[datetime]:
    """Every instant in [start, end) where some window's membership may change, sorted."""
    found: set[datetime] = set()
    seen: set[When] = set()
    for window in windows:
        if window.when not in seen:
            seen.add(window.when)
            found |= _local_boundaries(window.when, start, end)
    return sorted(found)


def _all_windows(desired: DesiredState) -> list[Window]:
    return [window for share in desired.shares for window in share.schedule]


def in_force(desired: DesiredState, instant: datetime) -> tuple[str | None, ...]:
    """The name of the window in force on each share (None: its base settings), in order."""
    return tuple(
        (window.name if (window := window_in_force(share, instant)) else None)
        for share in desired.shares
    )


_KNOWN: dict[int, tuple[object, datetime, datetime | None]] = {}
"""Next changes already found: id of the state or share -> (it, from, the change). Between
``from`` and the change nothing changes, so for any instant in between the answer is the
same: a replay asks at every governor tick, and the scan is most of a tick's cost."""
_NONE_HOLDS = timedelta(days=30)
"""How long "no change within a year" is taken as known from the instant it was found."""


def _remembered(key: object, now: datetime, find: Callable[[], datetime | None]) -> datetime | None:
    entry = _KNOWN.get(id(key))
    if entry is not None and entry[0] is key and entry[1] <= now:
        known, since = entry[2], entry[1]
        if (known is not None and now < known) or (known is None and now < since + _NONE_HOLDS):
            return known
    found = find()
    if len(_KNOWN) > 512:
        _KNOWN.clear()
    _KNOWN[id(key)] = (key, now, found)
    return found


def next_change(desired: DesiredState, now: datetime) -> datetime | None:
    """The first instant after ``now`` (within a year) at which a share's window changes."""
    return _remembered(desired, now, lambda: _next_change(desired, now))


def _next_change(desired: DesiredState, now: datetime) -> datetime | None:
    windows = _all_windows(desired)
    if not windows:
        return None
    current = in_force(desired, now)
    start = now + timedelta(seconds=1)
    searched = start
    for span in (timedelta(days=8), HORIZON):  # most windows change within a week
        for instant in boundaries(windows, searched, now + span):
            if in_force(desired, instant) != current:
                return instant
        searched = now + span
    return None


def next_change_of(share: ShareSpec, now: datetime) -> datetime | None:
    """The first instant after ``now`` (within a year) at which ``share``'s window in force
    changes (the end of the one in force now, or the start of the next)."""
    return _remembered(share, now, lambda: _next_change_of(share, now))


def _next_change_of(share: ShareSpec, now: datetime) -> datetime | None:
    if not share.schedule:
        return None
    current = window_in_force(share, now)
    start = now + timedelta(seconds=1)
    searched = start
    for span in (timedelta(days=8), HORIZON):
        for instant in boundaries(share.schedule, searched, now + span):
            if window_in_force(share, instant) != current:
                return instant
        searched = now + span
    return None


@dataclass(frozen=True)
class Combination:
    """A combination of windows in force (one entry per share: its window's name, or None),
    and the first instant it occurs."""

    windows: tuple[str | None, ...]
    first: datetime

    def named(self, shares: Sequence[ShareSpec]) -> list[str]:
        """``queue/share: window`` for each share that has a window in force."""
        return [
            f"{share.queue}/{share.name}: {name}"
            for share, name in zip(shares, self.windows, strict=True)
            if name is not None
        ]


def combinations(
    desired: DesiredState, start: datetime, span: timedelta = HORIZON
) -> list[Combination]:
    """Each distinct combination of windows in force in [start, start + span), with the first
    instant it occurs, in order of occurrence; the base (no window) comes first when it occurs
    at ``start``."""
    windows = _all_windows(desired)
    first: dict[tuple[str | None, ...], datetime] = {in_force(desired, start): start}
    if windows:
        for instant in boundaries(windows, start, start + span):
            first.setdefault(in_force(desired, instant), instant)
    return [Combination(names, at) for names, at in first.items()]


def desired_with(desired: DesiredState, names: Sequence[str | None]) -> DesiredState:
    """``desired`` with the named window in force on each share (see ``apply_window``)."""
    from dataclasses import replace

    shares = tuple(
        apply_window(share, _named(share, name))
        for share, name in zip(desired.shares, names, strict=True)
    )
    return replace(desired, shares=shares)


def _named(share: ShareSpec, name: str | None) -> Window | None:
    return next((w for w in share.schedule if w.name == name), None) if name else None


def apply_window(share: ShareSpec, window: Window | None) -> ShareSpec:
    """The share's settings with ``window``'s overrides: capacity merged per instance type,
    a sharing other than lend_and_borrow dropping the borrow limit."""
    from dataclasses import replace

    from quotactl.core.resources.desired import UNLIMITED, Strategy

    if window is None:
        return share
    strategy = window.strategy or share.strategy
    limit = share.borrow_limit if window.borrow_limit is None else window.borrow_limit
    if strategy is not Strategy.LEND_AND_BORROW:
        limit = UNLIMITED
    return replace(
        share,
        capacity={**share.capacity, **(window.capacity or {})},
        strategy=strategy,
        borrow_limit=limit,
        in_share_preemption=(
            share.in_share_preemption
            if window.in_share_preemption is None
            else window.in_share_preemption
        ),
        enabled=share.enabled if window.enabled is None else window.enabled,
    )
