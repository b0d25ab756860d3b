"""Prices for showback: instance type -> price per instance-hour (any currency, one for all)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quotactl.errors import PricesError

if TYPE_CHECKING:
    from collections.abc import Iterable

_HINT = "a prices file maps instance types to prices per instance-hour, e.g. ml.p5.48xlarge: 98.32"


def prices_from(items: Iterable[tuple[object, object]], source: str) -> dict[str, float]:
    """Check (instance type, price) pairs: a name, and a finite price of at least 0, once each."""
    prices: dict[str, float] = {}
    for name, value in items:
        if not isinstance(name, str) or not name.strip():
            raise PricesError(f"{source}: {name!r} is not an instance type", hint=_HINT)
        try:
            price = math.nan if isinstance(value, bool) else float(str(value))
        except (TypeError, ValueError):
            price = math.nan
        if not math.isfinite(price) or price < 0:
            raise PricesError(
                f"{source}: {name}: the price must be a number of at least 0, got {value!r}",
                hint=_HINT,
            )
        if name in prices:
            raise PricesError(f"{source}: {name} is priced twice", hint=_HINT)
        prices[name.strip()] = price
    if not prices:
        raise PricesError(f"{source}: no price in the file", hint=_HINT)
    return prices
