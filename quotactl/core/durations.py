"""Durations as people type them: ``90s``, ``30m``, ``2h``, ``1d``, ``1h30m`` or plain seconds;
and as people read them: ``45 s``, ``12 min``, ``5.1 h``.

One parser for every command that takes a duration (``local advance``, ``submit --timeout``,
job specs' ``max_runtime``), so the accepted spellings are the same everywhere, and one
wording for every view that shows one (``human_duration``).
"""

from __future__ import annotations

import math
import re

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_HOUR = 3600.0
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_PLAIN = re.compile(r"\d+(?:\.\d+)?")


class DurationError(ValueError):
    """Text that is not a duration; the message says what is accepted."""


def parse_duration(text: str) -> float:
    """Seconds in ``text``; raises DurationError for anything else (negative, empty, ``3x``)."""
    value = text.strip().lower()
    if _PLAIN.fullmatch(value):
        seconds = float(value)
    else:
        parts = _PART.findall(value)
        if not parts or "".join(n + u for n, u in parts) != value:
            raise DurationError(
                f"invalid duration {text!r}: use a number with s, m, h or d "
                "(e.g. 90s, 30m, 2h, 1d, 1h30m) or plain seconds"
            )
        seconds = sum(float(number) * UNITS[unit] for number, unit in parts)
    if not math.isfinite(seconds):
        raise DurationError(f"invalid duration {text!r}: too large")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest spelling ``parse_duration`` reads back (``5400`` -> ``1h30m``)."""
    if seconds < 0 or not math.isfinite(seconds):
        raise DurationError(f"cannot format {seconds!r} as a duration")
    whole = int(seconds)
    if whole != seconds:
        return f"{seconds:g}s"
    if whole == 0:
        return "0s"
    out = []
    for unit, size in sorted(UNITS.items(), key=lambda item: -item[1]):
        count, whole = divmod(whole, size)
        if count:
            out.append(f"{count}{unit}")
    return "".join(out)


def human_duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``5.1 h``, ``3.2 d``, ``1,767 d``: read at a glance."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * _HOUR:
        return f"{seconds / _HOUR:.1f} h"
    days = seconds / (24 * _HOUR)
    return f"{days:.1f} d" if days < 100 else f"{days:,.0f} d"
