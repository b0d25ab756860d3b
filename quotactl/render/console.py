"""The one place a rich Console is built."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console

__all__ = ["Console", "make_console"]


def make_console(file: TextIO, *, color: bool = True, width: int | None = None) -> Console:
    """A console writing to ``file``; colourless and fixed-width when asked (tests, NO_COLOR)."""
    return Console(
        file=file,
        no_color=not color,
        color_system="auto" if color else None,
        width=width,
        highlight=False,
        soft_wrap=width is None,
        emoji=False,
    )
