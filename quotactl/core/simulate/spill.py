"""Sorting a stream of rows with bounded memory: sorted runs spilled to files, then merged.

Used where a stream arrives out of order and must be replayed in order: a live account's job
history (``trace export``) and a trace file that is not in submission order (``simulate``).
Rows are tuples of JSON values (numbers and strings); the sort is stable.
"""

from __future__ import annotations

import heapq
import json
from typing import TYPE_CHECKING, Any, TypeVar

from quotactl.core.simulate import io

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

Row = TypeVar("Row", bound=tuple[Any, ...])

CHUNK = 200_000
"""Rows sorted in memory at once; a longer stream is merged from temporary files."""


def sorted_rows(
    rows: Iterable[Row], key: Callable[[Row], Any], *, chunk: int = CHUNK
) -> Iterator[Row]:
    """``rows`` ordered by ``key`` (stable), holding at most ``chunk`` of them in memory."""
    with io.temporary_directory("quotactl-sort-") as spill:
        runs: list[Path] = []
        batch: list[Row] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= chunk:
                batch.sort(key=key)
                runs.append(_spill(batch, spill, len(runs)))
                batch = []
        batch.sort(key=key)
        if not runs:
            yield from batch
            return
        runs.append(_spill(batch, spill, len(runs)))
        files = [io.read_text(path) for path in runs]
        try:
            loaded = ((_load(line) for line in f) for f in files)
            yield from heapq.merge(*loaded, key=key)
        finally:
            for f in files:
                f.close()


def _spill(rows: list[Row], directory: Path, index: int) -> Path:
    path = directory / f"run-{index}.jsonl"
    with io.write_text(path) as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    return path


def _load(line: str) -> Any:
    return tuple(json.loads(line))
