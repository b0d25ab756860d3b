"""Reading a ``usage --prices`` file: YAML (``ml.p5.48xlarge: 98.32``) or CSV
(``instance_type,price``, the header optional), by its suffix."""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING

import yaml

from quotactl.core.files import MAX_CONFIG_BYTES, check_readable, check_size
from quotactl.core.history.prices import prices_from
from quotactl.errors import FileIOError, PricesError

if TYPE_CHECKING:
    from pathlib import Path


def load_prices(path: Path) -> dict[str, float]:
    """The prices at ``path``; ``prices-invalid`` for anything but type -> price."""
    check_readable(path, "prices file")
    check_size(path, MAX_CONFIG_BYTES, "prices file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileIOError(f"cannot read prices file {path}: {exc}") from None
    if path.suffix.lower() == ".csv":
        rows = [r for r in csv.reader(text.splitlines()) if r and any(c.strip() for c in r)]
        if rows and rows[0][0].strip() == "instance_type":
            rows = rows[1:]
        for line, row in enumerate(rows, start=1):
            if len(row) != 2:
                raise PricesError(f"{path}: row {line} must be instance_type,price")
        return prices_from(((r[0].strip(), r[1].strip()) for r in rows), str(path))
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PricesError(f"{path}: not YAML: {exc}") from None
    if not isinstance(loaded, dict):
        raise PricesError(
            f"{path}: the prices must be a mapping of instance type to price",
            hint="e.g. ml.p5.48xlarge: 98.32",
        )
    return prices_from(loaded.items(), str(path))
