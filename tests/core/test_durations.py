"""Durations as people type them, and back."""

from __future__ import annotations

import pytest

from quotactl.core.durations import DurationError, format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("30m", 1800),
        ("2h", 7200),
        ("1d", 86400),
        ("45", 45),
        ("1h30m", 5400),
        ("1.5h", 5400),
        (" 2H ", 7200),
        ("0", 0),
    ],
)
def test_parse(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "3x", "-5", "h", "1h 30m", "2hh", "1e400"])
def test_invalid_durations_say_what_is_accepted(text: str) -> None:
    with pytest.raises(DurationError, match="invalid duration"):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"), [(5400, "1h30m"), (0, "0s"), (90061, "1d1h1m1s"), (1.5, "1.5s")]
)
def test_format_round_trips(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    assert parse_duration(text) == seconds
