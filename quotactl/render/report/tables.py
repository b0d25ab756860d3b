"""The text report's tables, as a report's ``Table``: the same rows, so both say one thing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from quotactl.render.report.model import Table

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table as RichTable


def from_rich(table: RichTable) -> Table:
    """A rich ``Table`` of plain cells (str or ``Text``) as a report ``Table``."""
    columns = table.columns
    cells = [[_plain(c) for c in column.cells] for column in columns]
    rows = [list(row) for row in zip(*cells, strict=True)] if cells else []
    return Table(
        title=_plain(table.title or ""),
        header=[_plain(c.header) for c in columns],
        rows=rows,
        numeric=[c.justify == "right" for c in columns],
        note=_plain(table.caption or ""),
    )


def _plain(cell: RenderableType | str) -> str:
    if isinstance(cell, Text):
        return cell.plain
    return str(cell)
