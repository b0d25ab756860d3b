"""``status`` as text: per queue a table of shares and instance types with a usage bar, the
queue totals, who borrows from whom, the heads of the shares, and a per-team rollup.

Columns that do not fit the terminal are dropped, least important first (the head job, which
is then listed under the table, team, borrow limit, sharing, own, idle, preemptions, job
counts, the bar, in use); share, type, limit, borrowed, lent and headroom always stay, names
fold onto a second line rather than being cut, and below that one line per share and type.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from quotactl.core.outputs import Output
from quotactl.core.states import HOLDING, QUEUED
from quotactl.core.status.report import StatusReport
from quotactl.render.console import print_trimmed
from quotactl.render.status_json import iso_time
from quotactl.render.status_parts import (
    AMOUNT_PLACES,
    DASH,
    amount,
    borrow_text,
    budget_line,
    displayed,
    legend,
    usage_bar,
)
from quotactl.render.symbols import STRATEGIES
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from rich.console import Console, RenderableType

    from quotactl.core.govern.readback import Governance
    from quotactl.core.status.report import CapacityRow, QueueStatus, ShareStatus

FOLDED_NAME = 12  # a share name may fold to this width in the narrowest table


@dataclass(frozen=True)
class Column:
    """A table column: its value comes from the share (first row only) or from each row."""

    header: str
    drop: int  # dropped first when the table is too wide: higher goes first; 0 never
    share: Callable[[ShareStatus], str] | None = None
    row: Callable[[CapacityRow], str | Text] | None = None
    right: bool = True


COLUMNS = (
    Column(
        "SHARE", 0, share=lambda s: s.name if s.enabled else f"{s.name} (disabled)", right=False
    ),
    Column("TEAM", 9, share=lambda s: s.team or DASH, right=False),
    Column("SHARING", 7, share=lambda s: STRATEGIES[s.sharing.value], right=False),
    Column("BORROW", 8, share=lambda s: borrow_text(s)),
    Column("TYPE", 0, row=lambda r: r.instance_type, right=False),
    Column("LIMIT", 0, row=lambda r: str(r.limit)),
    Column("IN USE", 1, row=lambda r: str(r.in_use)),
    Column("OWN", 6, row=lambda r: str(r.own)),
    Column("BORROWED", 0, row=lambda r: str(r.borrowed)),
    Column("IDLE", 5, row=lambda r: str(r.idle)),
    Column("LENT", 0, row=lambda r: amount(r.lent)),
    Column("HEADROOM", 0, row=lambda r: DASH if r.headroom is None else str(r.headroom)),
    Column("USAGE", 2, row=lambda r: usage_bar(r), right=False),
    Column("QUEUED", 3, share=lambda s: _jobs([s], QUEUED)),
    Column("ACTIVE", 3, share=lambda s: _jobs([s], HOLDING)),
    Column("PRE 24H", 4, share=lambda s: str(s.preempted_24h)),
    Column("HEAD", 10, share=lambda s: _head(s), right=False),
)
TOTALS: dict[str, Callable[[QueueStatus], str]] = {
    "SHARE": lambda q: "total",
    "QUEUED": lambda q: _jobs(q.shares, QUEUED),
    "ACTIVE": lambda q: _jobs(q.shares, HOLDING),
    "PRE 24H": lambda q: str(sum(s.preempted_24h for s in q.shares)),
}


@view(StatusReport, Output.TEXT)
def show_status(report: StatusReport, screen: Screen) -> None:
    """``status``: the tables of every queue and team."""
    print_status(screen.console(), report)


def print_status(console: Console, report: StatusReport) -> None:
    print_trimmed(console, status_view(console, report))


def status_view(console: Console, report: StatusReport) -> RenderableType:
    """Everything ``status`` shows, as one renderable (``--watch`` redraws it in place)."""
    parts: list[RenderableType] = []
    if not report.queues:
        parts.append(Text("Nothing to show: no quota-managed job queue."))
    for index, queue in enumerate(report.queues):
        # a blank line between queues, none before the first (`status | head -1`)
        shown = displayed(queue, AMOUNT_PLACES)
        parts += _queue_parts(console, shown, report.at)[0 if index else 1 :]
    if report.teams:
        teams = _teams_table(report)
        parts += [Text(""), teams if _fits(console, teams) else _team_lines(report)]
    parts += governance_lines(report.governance)
    return Group(*parts)


def governance_lines(governance: Governance) -> list[RenderableType]:
    """Budgets (used of allowed, the overshoot, when they reset) and the shares the governor
    holds changed (the policy, until when; a restore past its time is flagged overdue)."""
    parts: list[RenderableType] = []
    if governance.budgets:
        parts += [Text(""), Text("Budgets (the governor's figures)", style="bold")]
        for row in governance.budgets:
            parts.append(Text("  " + budget_line(row), style="red" if row.exceeded else ""))
    if governance.governed:
        parts += [Text(""), Text("Policies in force (set by the governor)", style="bold")]
        for held in governance.governed:
            until = f" until {_minute(held.until)}" if held.until else ""
            line = Text(f"  {held.address}: {held.policy}{until}")
            if held.overdue:
                line.append(
                    "  OVERDUE: not restored; is `quotactl govern` running?", style="bold red"
                )
            parts.append(line)
    return parts


def _minute(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")


def _queue_parts(console: Console, queue: QueueStatus, at: float) -> list[RenderableType]:
    capacity = ", ".join(f"{t} {n}" for t, n in queue.capacity.items()) or "no capacity"
    title = Text.assemble(
        ("Queue ", "bold"),
        (queue.name, "bold"),
        "" if queue.enabled else " (DISABLED)",
        f"  environment {queue.environment or DASH}: {capacity}  at {iso_time(at)}",
    )
    table, shown = _shares_table(console, queue)
    parts: list[RenderableType] = [Text(""), title]
    if table is None:
        parts += _share_lines(queue)
    else:  # the bar's key, when the bar is shown
        parts += [table, legend()] if any(c.header == "USAGE" for c in shown) else [table]
    if not any(c.header == "HEAD" for c in shown):
        heads = [s for s in queue.shares if s.head is not None]
        if heads:
            parts.append(Text("Next to run:"))
            parts += [Text(f"  {s.name}: {_head(s)}") for s in heads]
    parts += [Text(""), _borrowing(console, queue)]
    return parts


def _share_lines(queue: QueueStatus) -> list[RenderableType]:
    """The narrowest layout: one short block per share and type, wrapping at words."""
    lines: list[RenderableType] = []
    for share in queue.shares:
        sharing = STRATEGIES[share.sharing.value]
        if share.borrow_limit is not None:
            sharing += f" {borrow_text(share)}"
        name = share.name if share.enabled else f"{share.name} (disabled)"
        lines.append(Text(f"{name} ({sharing})", style="bold"))
        for row in share.capacity:
            lines.append(Text(f"  {row.instance_type}: " + _figures(row)))
    for row in queue.totals:
        lines.append(Text(f"total {row.instance_type}: " + _figures(row), style="bold"))
    return lines


def _figures(row: CapacityRow) -> str:
    room = "" if row.headroom is None else f", headroom {row.headroom}"
    return (
        f"limit {row.limit}, in use {row.in_use}, own {row.own}, borrowed {row.borrowed}, "
        f"idle {row.idle}, lent {amount(row.lent)}{room}"
    )


def _fits(console: Console, renderable: RenderableType, slack: int = 0) -> bool:
    unbounded = console.options.update(width=1 << 20)  # measure without squeezing
    return Measurement.get(console, unbounded, renderable).maximum <= console.width + slack


def _longest_name(queue: QueueStatus) -> int:
    return max(
        (len(_cell(COLUMNS[0], s, s.capacity[0])) for s in queue.shares if s.capacity), default=0
    )


def _shares_table(console: Console, queue: QueueStatus) -> tuple[Table | None, list[Column]]:
    """The widest table that fits, or None when even the key columns do not.

    A table of these columns (no box, no edge padding, one space each side of a cell) is as
    wide as its columns' widest cells plus two spaces between columns, so the cells are
    measured once and each narrower choice of columns is a sum, not another table."""
    rows = _rows(queue, list(COLUMNS))
    widths = {
        c.header: max(_cell_width(cell) for cell in [c.header, *(r[i] for r in rows)])
        for i, c in enumerate(COLUMNS)
    }
    columns = list(COLUMNS)
    while True:
        droppable = [c for c in columns if c.drop]
        # The key columns alone may fold long share names onto a second line.
        slack = 0 if droppable else max(0, _longest_name(queue) - FOLDED_NAME)
        natural = sum(widths[c.header] for c in columns) + 2 * (len(columns) - 1)
        if natural <= console.width + slack:
            return _build(queue, columns), columns
        if not droppable:
            return None, []
        first = max(c.drop for c in droppable)  # columns of one rank go together
        columns = [c for c in columns if c.drop != first]


def _cell_width(cell: str | Text) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


def _build(queue: QueueStatus, columns: list[Column]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold", show_edge=False)
    for column in columns:
        if column.right:
            table.add_column(column.header, justify="right", no_wrap=True)
        else:  # names fold onto a second line rather than lose their end
            table.add_column(column.header, overflow="fold")
    totals = len(queue.totals)
    rows = _rows(queue, columns)
    for index, cells in enumerate(rows):
        table.add_row(*cells, style="bold" if index >= len(rows) - totals else None)
    return table


def _rows(queue: QueueStatus, columns: list[Column]) -> list[list[str | Text]]:
    """The table's cells: a row per share and type, then the queue's totals."""
    rows: list[list[str | Text]] = [
        [_cell(c, share if index == 0 else None, row) for c in columns]
        for share in queue.shares
        for index, row in enumerate(share.capacity)
    ]
    for index, row in enumerate(queue.totals):
        cells: list[str | Text] = []
        for column in columns:
            if column.row is not None and column.header not in {"HEADROOM", "USAGE"}:
                cells.append(column.row(row))
            elif column.header == "HEADROOM":
                cells.append(DASH)
            elif column.header in TOTALS and index == 0:
                cells.append(TOTALS[column.header](queue))
            else:
                cells.append("")
        rows.append(cells)
    return rows


def _cell(column: Column, share: ShareStatus | None, row: CapacityRow) -> str | Text:
    if column.row is not None:
        return column.row(row)
    if share is None or column.share is None:
        return ""
    return column.share(share)


UNATTRIBUTED = "(unattributed)"
"""The lender of borrowing no lender's idle capacity covers."""


def _borrowing(console: Console, queue: QueueStatus) -> RenderableType:
    if not queue.borrowing:
        return Text("No share is borrowing.")
    table = _borrowing_table(queue)
    notes = _unattributed_notes(queue)
    if _fits(console, table):
        return Group(table, *notes)
    return Group(
        Text("Who borrows from whom", style="bold"),
        *(
            Text(
                f"  {p.instance_type}: {p.borrower} from {p.lender or UNATTRIBUTED}"
                f" {amount(p.instances)}"
            )
            for p in queue.borrowing
        ),
        *notes,
    )


def _unattributed_notes(queue: QueueStatus) -> list[Text]:
    """Borrowing attributed to no lender, said as such."""
    types = sorted({p.instance_type for p in queue.borrowing if p.lender is None})
    return [
        Text(
            f"{amount(queue.unattributed(t))} borrowed {t} attributed to no lender: no lending"
            " share has that much idle capacity (limits lowered, or a lender turned RESERVE,"
            " while the capacity was borrowed).",
            style="dim",
        )
        for t in types
    ]


def _borrowing_table(queue: QueueStatus) -> Table:
    table = Table(
        title=Text("Who borrows from whom", style="bold"),
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold",
    )
    for header, right in (("TYPE", False), ("BORROWER", False), ("LENDER", False)):
        table.add_column(header, justify="right" if right else "left", no_wrap=True)
    table.add_column("INSTANCES", justify="right", no_wrap=True)
    for pair in queue.borrowing:
        table.add_row(
            pair.instance_type,
            pair.borrower,
            pair.lender or UNATTRIBUTED,
            amount(pair.instances),
        )
    return table


def _teams_table(report: StatusReport) -> Table:
    table = Table(
        title=Text("Teams (all queues)", style="bold"),
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold",
    )
    for header in ("TEAM", "TYPE"):
        table.add_column(header, no_wrap=True)
    for header in ("LIMIT", "IN USE", "BORROWED", "LENT"):
        table.add_column(header, justify="right", no_wrap=True)
    for team in report.teams:
        for index, row in enumerate(team.capacity):
            table.add_row(
                team.name if index == 0 else "",
                row.instance_type,
                str(row.limit),
                str(row.in_use),
                str(row.borrowed),
                amount(row.lent),
            )
    return table


def _team_lines(report: StatusReport) -> RenderableType:
    lines = [Text("Teams (all queues)", style="bold")]
    for team in report.teams:
        for row in team.capacity:
            lines.append(
                Text(
                    f"  {team.name} {row.instance_type}: limit {row.limit}, in use "
                    f"{row.in_use}, borrowed {row.borrowed}, lent {amount(row.lent)}"
                )
            )
    return Group(*lines)


def _jobs(shares: Iterable[ShareStatus], statuses: tuple[str, ...]) -> str:
    return str(sum(s.jobs.get(status, 0) for s in shares for status in statuses))


def _head(share: ShareStatus) -> str:
    if share.head is None:
        return ""
    return f"{share.head.name} ({share.head.wait_code or 'running'})"
