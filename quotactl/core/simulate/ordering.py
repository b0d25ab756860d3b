"""A trace that is not in submission order, sorted into a temporary copy for the replay.

Replays stream a trace and need its rows in submission order. Rather than refuse a trace
someone put together by hand (or concatenated from several exports), ``simulate`` sorts it
by ``submit_time`` (stable: rows submitted at the same time keep their order) with bounded
memory, and says so.
"""

from __future__ import annotations

import csv
from contextlib import contextmanager
from typing import TYPE_CHECKING

from quotactl.core.simulate import io, spill
from quotactl.core.simulate.trace import COLUMNS, read_trace

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from quotactl.core.simulate.trace import TraceRow


@contextmanager
def sorted_trace(path: Path) -> Iterator[Path]:
    """A sorted copy of the trace at ``path`` (same file name, in a temporary directory)."""
    with io.temporary_directory("quotactl-trace-") as folder:
        target = folder / path.name
        with io.read_text(path) as lines, io.write_text(target) as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(COLUMNS)
            rows = read_trace(lines, str(path), ordered=False)
            for row in spill.sorted_rows(rows, _submit_time):
                writer.writerow((repr(row[0]), *row[1:4], repr(row[4]), *row[5:7]))
        yield target


def _submit_time(row: TraceRow) -> float:
    return row[0]
