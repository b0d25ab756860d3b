"""Reading a trace file for a replay, streamed; a big one is parsed by a worker process.

The simulation is CPU-bound and single threaded, and parsing is a fifth of the work, so on a
machine with two cores a second process parses while this one simulates. The worker is
spawned (never forked: safe whatever the parent runs) and sends rows in batches of ``BATCH``.
"""

from __future__ import annotations

from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.files import MAX_TRACE_BYTES, check_readable, check_size
from quotactl.core.simulate import io
from quotactl.core.simulate.trace import read_trace
from quotactl.errors import QuotactlError, TraceError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from multiprocessing.connection import Connection

    from quotactl.core.simulate.trace import TraceRow

PARALLEL_BYTES = 4 * 2**20
"""Traces at least this big are parsed in a worker process (starting one costs ~60 ms)."""
BATCH = 1000
"""Rows per message from the worker (unpickling costs ~0.2 us a row at this size)."""


def trace_rows(path: Path, *, parallel: bool = True) -> Iterator[TraceRow]:
    """The rows of a trace file, streamed; with ``parallel``, a big one is parsed elsewhere."""
    check_trace(path)
    if not parallel or io.size(path) < PARALLEL_BYTES or not io.can_spawn():
        return read_here(path)
    # rows straight from each batch's list: no generator frame resumed per row
    return chain.from_iterable(_batches_from_worker(path))


def check_trace(path: Path) -> None:
    """A trace that is missing, or no file (a directory, a device), is ``io-error``, and one
    over the size limit ``file-too-large``, before any work starts."""
    check_readable(
        path,
        "trace file",
        hint="make one with: quotactl trace generate --jobs N --out FILE,"
        " or from the live account with: quotactl trace export --out FILE",
    )
    check_size(path, MAX_TRACE_BYTES, "trace file")


def read_here(path: Path) -> Iterator[TraceRow]:
    """The rows of ``path``, parsed in this process."""
    with io.read_text(path) as lines:
        try:
            yield from read_trace(lines, str(path))
        except UnicodeDecodeError as exc:
            raise not_text(path, exc) from None


def not_text(path: Path, exc: UnicodeDecodeError) -> QuotactlError:
    return TraceError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")


def _batches_from_worker(path: Path) -> Iterator[Iterable[TraceRow]]:
    """The rows of ``path`` in the worker's batches (parsed here if the worker cannot run)."""
    received = False
    with io.worker(_parse_worker, str(path)) as receiver:
        while True:
            try:
                message = receiver.recv()
            except EOFError:
                if not received:  # the worker never ran (spawn could not start it): read here
                    yield read_here(path)
                    return
                raise TraceError(f"the reader of {path} stopped unexpectedly") from None
            received = True
            if message is None:
                return
            if isinstance(message, QuotactlError):
                raise message  # whole, class included: an unsorted trace stays TraceUnsorted
            yield message


def _parse_worker(path: str, sender: Connection) -> None:
    """Worker process: parse the trace and send rows in batches; an error ends the stream."""
    try:
        batch: list[TraceRow] = []
        for row in read_here(Path(path)):
            batch.append(row)
            if len(batch) == BATCH:
                sender.send(batch)
                batch = []
        sender.send(batch)
        sender.send(None)
    except QuotactlError as exc:
        sender.send(exc)  # QuotactlError pickles its class and attributes
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the simulation stopped reading (an error of its own, or ^C)
    finally:
        sender.close()
