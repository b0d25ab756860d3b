"""What a report is made of: plain data, so any command can describe its own report."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


class Kind(StrEnum):
    """How a chart draws its series."""

    LINES = "lines"  # series over a numeric x, each a line (``Series.fill``: the area under it)
    BARS = "bars"  # grouped bars, one group per x label


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]
    fill: bool = False  # the area under a line is filled (later series are drawn on top)
    dashed: bool = False
    dots: bool = False  # LINES: a dot at each point
    line: bool = True  # LINES: the points joined (no line and dots: a scatter)
    x: Sequence[float] = ()  # LINES: the series' own x values (default: the chart's ``x``)


@dataclass(frozen=True)
class Table:
    """A table as text: a header row, rows of cells, an optional note under it."""

    title: str
    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    numeric: Sequence[bool] = ()  # per column: right-aligned
    note: str = ""


@dataclass(frozen=True)
class Chart:
    """One chart, and what it says for someone who cannot see it (``alt``, ``figures``)."""

    title: str
    kind: Kind
    x_labels: Sequence[str]  # BARS: one per group; LINES: empty, the axis is ``x``
    series: Sequence[Series]
    y_title: str
    alt: str
    x: Sequence[float] = ()  # LINES: the x value of each point
    x_title: str = ""
    figures: Table | None = None


@dataclass(frozen=True)
class Section:
    title: str
    lines: Sequence[str] = ()
    tables: Sequence[Table] = ()
    charts: Sequence[Chart] = ()
    sections: Sequence[Section] = field(default_factory=tuple)


@dataclass(frozen=True)
class Report:
    title: str
    lines: Sequence[str]
    sections: Sequence[Section]
