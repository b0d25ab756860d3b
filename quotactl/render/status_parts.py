"""The small pieces of the status view: the usage bar, amounts, labels, the legend, and the
figures as displayed (rounded so that they add up)."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC
from fractions import Fraction
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.govern.readback import BudgetRow
    from quotactl.core.status.report import CapacityRow, QueueStatus, ShareStatus

BAR_WIDTH = 10
OWN, BORROWED, IDLE, UNUSED = "\u2588", "\u2593", "\u2591", "\u00b7"  # █ ▓ ░ ·
STYLES = {OWN: "green", BORROWED: "yellow", IDLE: "cyan", UNUSED: "dim"}
DASH = "-"  # no value, in the ASCII tables of status
AMOUNT_PLACES = 1
"""Decimals of a share of pooled instances in text (``amount``)."""


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


def shown_parts(
    parts: Sequence[Fraction], places: int, total: Fraction | None = None
) -> list[Fraction]:
    """``parts`` rounded to ``places`` decimals by largest remainders: what is shown adds up to
    the shown total (the sum rounded to the same places, or ``total`` when given: a whole
    whose other parts are shown already), where rounding each part alone would not (three
    thirds shown as 0.3 do not make 1)."""
    unit = Fraction(1, 10**places)
    exact = [p / unit for p in parts]
    floors = [math.floor(x) for x in exact]
    whole = round(sum(exact, Fraction(0))) if total is None else round(total / unit)
    left = whole - sum(floors)
    # the largest remainders first; equal remainders in the order given
    order = sorted(range(len(exact)), key=lambda i: (floors[i] - exact[i], i))
    for i in order[: max(0, left)]:
        floors[i] += 1
    # a given total below the floors' sum: the smallest remainders give a unit back
    for i in [i for i in reversed(order) if floors[i] > 0][: max(0, -left)]:
        floors[i] -= 1
    return [n * unit for n in floors]


def displayed(queue: QueueStatus, places: int) -> QueueStatus:
    """The queue as shown with ``places`` decimals: per instance type, the lent capacity of the
    shares and the unattributed borrowing rounded together by largest remainders (they add up
    to the borrowed capacity), and each borrower's pairs rounded together (they add up to its
    borrowed capacity), so every shown part adds up to the shown whole."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, pair in enumerate(queue.borrowing):
        groups.setdefault((pair.instance_type, pair.borrower), []).append(index)
    instances = [p.instances for p in queue.borrowing]
    for indexes in groups.values():
        shown = shown_parts([instances[i] for i in indexes], places)
        for i, value in zip(indexes, shown, strict=True):
            instances[i] = value
    lent: dict[tuple[str, str], Fraction] = {}
    for t in {r.instance_type for s in queue.shares for r in s.capacity}:
        keys = [(s.name, t) for s in queue.shares for r in s.capacity if r.instance_type == t]
        values = [r.lent for s in queue.shares for r in s.capacity if r.instance_type == t]
        # the lenders' parts make up what the unattributed pairs, as shown, leave of the
        # borrowed whole
        unattributed = sum(
            (
                instances[i]
                for i, p in enumerate(queue.borrowing)
                if p.instance_type == t and p.lender is None
            ),
            Fraction(0),
        )
        whole = sum(values, Fraction(0)) + queue.unattributed(t)
        shown = shown_parts(values, places, round(whole, places) - unattributed)
        lent.update(zip(keys, shown, strict=True))
    shares = tuple(
        replace(
            s,
            capacity=tuple(replace(r, lent=lent[s.name, r.instance_type]) for r in s.capacity),
        )
        for s in queue.shares
    )
    return replace(
        queue,
        shares=shares,
        totals=tuple(
            replace(
                total,
                lent=sum(
                    (
                        lent[s.name, total.instance_type]
                        for s in queue.shares
                        if (s.name, total.instance_type) in lent
                    ),
                    Fraction(0),
                ),
            )
            for total in queue.totals
        ),
        borrowing=tuple(
            replace(p, instances=n) for p, n in zip(queue.borrowing, instances, strict=True)
        ),
    )


def budget_line(row: BudgetRow) -> str:
    """``research ml.p5.48xlarge: 2050 of 2000 h (102%), hard budget, over, over by 50 h,
    resets 2027-01-01T00:00Z``."""
    state = "over" if row.exceeded else "within"
    overshoot = f", over by {_hours(row.overshoot)} h" if row.overshoot > 0 else ""
    resets = f", resets {row.resets.astimezone(UTC):%Y-%m-%dT%H:%MZ}" if row.resets else ""
    return (
        f"{row.team} {row.instance_type}: {_hours(row.used)} of {_hours(row.limit)} h "
        f"({row.ratio:.0%}), {row.over} budget, {state}{overshoot}{resets}"
    )


def _hours(value: float) -> str:
    """Hours to a tenth, without a trailing ``.0``."""
    return f"{value:.1f}".removesuffix(".0")
