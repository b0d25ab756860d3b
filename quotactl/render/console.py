"""The one place a rich Console is built."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["Console", "make_console", "print_trimmed"]

TRAILING = re.compile(r" +(?=(?:\x1b\[[0-9;]*m)*$)", re.MULTILINE)
"""The spaces at the end of a line, before any closing colour codes."""


def print_trimmed(console: Console, renderable: RenderableType, *, crop: bool = True) -> None:
    """Print ``renderable`` with no line ending in spaces (rich pads a table's last column
    to its width: noise in a diff, a pipe or a copied line)."""
    with console.capture() as captured:
        console.print(renderable, crop=crop)
    console.file.write(TRAILING.sub("", captured.get()))


PIPE_WIDTH = 100_000
"""The width of output that goes to a pipe or a file: a table there takes the width its values
need, never cut or folded to 80 columns (kubectl's rule: a script or a CI log gets whole
names). ``COLUMNS`` set in the environment is still obeyed."""


def make_console(
    file: TextIO, *, color: bool = True, width: int | None = None, widen_pipes: bool = True
) -> Console:
    """A console writing to ``file``; colourless and fixed-width when asked (tests, NO_COLOR);
    as wide as its tables into a pipe or a file when ``widen_pipes`` (the CLI passes False
    when the user set ``COLUMNS``)."""
    console = Console(
        file=file,
        no_color=not color,
        color_system="auto" if color else None,
        width=width,
        highlight=False,
        soft_wrap=width is None,
        emoji=False,
    )
    if width is None and widen_pipes and not console.is_terminal:
        console.width = PIPE_WIDTH
    return console
