"""A Mermaid ``xychart-beta`` for markdown: GitHub draws it in a comment with nothing installed.

xychart-beta has no legend, so one series is drawn as bars and the other as a line, and the
title says which is which. Labels are quoted (a share's name may hold ``-`` or ``/``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.simulate.metrics import HOUR

if TYPE_CHECKING:
    from collections.abc import Sequence

DAY = 24 * HOUR


def wait_unit(seconds: Sequence[float]) -> tuple[str, float]:
    """Minutes, hours or days: whichever keeps the longest wait a readable number."""
    longest = max(seconds, default=0.0)
    if longest >= 3 * DAY:
        return "days", DAY
    if longest >= 3 * HOUR:
        return "hours", HOUR
    return "minutes", 60.0


def xychart(
    title: str,
    labels: Sequence[str],
    y_title: str,
    bars: Sequence[float],
    line: Sequence[float] | None = None,
) -> list[str]:
    """The lines of a fenced ``mermaid`` block: ``bars`` (and ``line``) over ``labels``."""
    top = max([*bars, *(line or ())], default=0.0)
    body = [
        "```mermaid",
        "xychart-beta",
        f"    title {_quoted(title)}",
        f"    x-axis [{', '.join(_quoted(label) for label in labels)}]",
        f"    y-axis {_quoted(y_title)} 0 --> {_number(top * 1.05 or 1.0)}",
        f"    bar [{', '.join(_number(v) for v in bars)}]",
    ]
    if line is not None:
        body.append(f"    line [{', '.join(_number(v) for v in line)}]")
    body.append("```")
    return body


def _quoted(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"
