"""The small pieces of the status view: the usage bar, amounts, labels and the legend."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from fractions import Fraction

    from quotactl.core.status.report import CapacityRow, ShareStatus

BAR_WIDTH = 10
OWN, BORROWED, IDLE, UNUSED = "\u2588", "\u2593", "\u2591", "\u00b7"  # █ ▓ ░ ·
STYLES = {OWN: "green", BORROWED: "yellow", IDLE: "cyan", UNUSED: "dim"}
DASH = "-"  # no value, in the ASCII tables of status


def usage_bar(row: CapacityRow, width: int = BAR_WIDTH) -> Text:
    """Own, borrowed and idle (or, for RESERVE, unused) instances against the limit."""
    spare = row.limit - row.own
    segments = [(OWN, row.own), (BORROWED, row.borrowed), (IDLE if row.idle else UNUSED, spare)]
    total = sum(n for _, n in segments)
    text = Text()
    if total <= 0:
        return text
    for mark, cells in zip((m for m, _ in segments), _cells(segments, total, width), strict=True):
        if cells:
            text.append(mark * cells, style=STYLES[mark])
    return text


def _cells(segments: list[tuple[str, int]], total: int, width: int) -> list[int]:
    """Largest-remainder rounding; a non-empty segment gets at least one cell."""
    exact = [n * width / total for _, n in segments]
    cells = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: exact[i] - cells[i], reverse=True):
        if sum(cells) >= width:
            break
        cells[i] += 1
    for i, (_, n) in enumerate(segments):
        if n and not cells[i]:
            cells[i] = 1
            biggest = max(range(len(cells)), key=lambda j: cells[j])
            cells[biggest] -= 1
    return cells


def amount(value: Fraction) -> str:
    """An exact share of instances: whole numbers as they are, else one decimal."""
    if value.denominator == 1:
        return str(int(value))
    return f"{float(value):.1f}"


def legend() -> Text:
    return Text.assemble(
        (OWN, STYLES[OWN]),
        " own  ",
        (BORROWED, STYLES[BORROWED]),
        " borrowed  ",
        (IDLE, STYLES[IDLE]),
        " idle (lendable)  ",
        (UNUSED, STYLES[UNUSED]),
        " unused (reserved)",
        style="dim",
    )


def borrow_text(share: ShareStatus) -> str:
    if share.borrow_limit is None:
        return DASH
    return "unlimited" if share.borrow_limit < 0 else f"{share.borrow_limit}%"
