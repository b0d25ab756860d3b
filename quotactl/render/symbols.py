"""The characters and words the renderers share, spelled once."""

from __future__ import annotations

ARROW = "\u2192"  # →: before → after
DASH = "\u2013"  # en dash: no value
TIMES = "\u00d7"  # multiplication sign, for ratios
STRATEGIES = {"RESERVE": "reserve", "LEND": "lend", "LEND_AND_BORROW": "lend+borrow"}
"""A share's sharing strategy as tables show it."""
