"""Counting words the way a person writes them: ``1 job``, ``2 jobs``, ``1,000 rows``."""

from __future__ import annotations


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``plural`` when it is not noun + s)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
