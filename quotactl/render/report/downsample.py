"""Thinning long series for drawing, without losing their extremes.

Series arrive per interval of equal width; ``factor`` says how many neighbours to merge so that
at most ``points`` remain. The lowest of merged lows and the highest of merged highs are kept
(so a chart's minimum and maximum are the series' own), sums are added (counts, and
instance-seconds whose average is the sum over the merged time).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

POINTS = 100
"""Points per drawn series: six to seven pixels each across a chart's plot, finer than the eye
follows a line (the extremes are kept whatever the thinning)."""


def factor(length: int, points: int = POINTS) -> int:
    """How many neighbouring intervals to merge into one point."""
    return max(1, math.ceil(length / points))


def lows(values: Sequence[float], step: int) -> list[float]:
    return [min(values[i : i + step]) for i in range(0, len(values), step)]


def highs(values: Sequence[float], step: int) -> list[float]:
    return [max(values[i : i + step]) for i in range(0, len(values), step)]


def sums(values: Sequence[float], step: int) -> list[float]:
    return [math.fsum(values[i : i + step]) for i in range(0, len(values), step)]
