"""The ``jobs`` table, written as its rows arrive: columns fixed by the first rows.

A rich ``Table`` measures every cell of every row before it prints the first line; a listing
of 10,000 jobs would wait for its last page and then spend seconds measuring. This table takes
its column widths from the header and the first ``FIRST_ROWS`` rows (about the first page),
prints them, and writes every later row at once with the same widths: a later value longer
than its column pushes the rest of its line right (as ``kubectl get`` does), it is never cut
short. Columns are separated by two spaces, numbers are right-aligned, the header is bold and
no line ends in spaces: the look of the rich table it replaces. On a terminal, a line longer
than the terminal is cut at its width (the last column, the reason, first).

A column is a ``Column`` (header, the cell of a job, alignment): a new column is one more entry
in a list (``columns``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from rich.console import Console

    from quotactl.core.resources.observed import LiveJob

FIRST_ROWS = 100
"""Rows read before the first line is printed (ListServiceJobs' page): their widths are the
columns' widths."""
GAP = "  "


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[LiveJob], str]
    right: bool = False


def _width(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


def _pad(text: str, width: int, right: bool) -> str:
    fill = width - _width(text)
    if fill <= 0:
        return text
    return " " * fill + text if right else text + " " * fill


class StreamTable:
    """Rows of ``columns`` written to ``console`` as they come; ``count`` of them so far."""

    def __init__(self, console: Console, columns: Sequence[Column]) -> None:
        self.console = console
        self.columns = columns
        self.count = 0
        self._widths: list[int] = []
        self._limit = console.width if console.is_terminal else None

    def write(self, jobs: Iterable[LiveJob]) -> None:
        rows = iter(jobs)
        first = [self._cells(job) for job in itertools.islice(rows, FIRST_ROWS)]
        if not first:
            return
        headers = [c.header for c in self.columns]
        columns = zip(headers, *first, strict=True)
        self._widths = [max(_width(cell) for cell in column) for column in columns]
        self.console.print(Text(self._line(headers), style="bold"), soft_wrap=True)
        out = self.console.file
        out.write("".join(self._line(cells) + "\n" for cells in first))
        out.flush()
        self.count = len(first)
        for job in rows:
            out.write(self._line(self._cells(job)) + "\n")
            self.count += 1
            if self.count % FIRST_ROWS == 0:
                out.flush()
        out.flush()

    def _cells(self, job: LiveJob) -> list[str]:
        return [c.cell(job) for c in self.columns]

    def _line(self, cells: Sequence[str]) -> str:
        last = len(cells) - 1
        parts = [
            _pad(cell, self._widths[i], self.columns[i].right) if i < last else cell
            for i, cell in enumerate(cells)
        ]
        line = GAP.join(parts).rstrip(" ")
        if self._limit is not None and _width(line) > self._limit:
            return _cut(line, self._limit)
        return line


def _cut(text: str, width: int) -> str:
    cut = Text(text)
    cut.truncate(width)
    return cut.plain
