"""Reading a trace file for a replay, streamed; a big one is parsed by a worker process.

The simulation is CPU-bound and single threaded, and parsing is a fifth of the work, so on a
machine with two cores a second process parses while this one simulates. The worker is
spawned (never forked: safe whatever the parent runs) and sends rows in batches of ``BATCH``.
"""

from __future__ import annotations

import os
import sys
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.simulate.trace import read_trace
from quotactl.errors import NotFoundError, QuotactlError, TraceError

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
    if not parallel or path.stat().st_size < PARALLEL_BYTES or not can_spawn():
        return read_here(path)
    # rows straight from each batch's list: no generator frame resumed per row
    return chain.from_iterable(_batches_from_worker(path))


def check_trace(path: Path) -> None:
    """A missing trace is ``not-found`` before any work starts."""
    if not path.is_file():
        raise NotFoundError(
            f"trace file {path} not found",
            hint="make one with: quotactl trace generate --jobs N --out FILE,"
            " or from the live account with: quotactl trace export --out FILE",
        )


def can_spawn() -> bool:
    """Two cores or more, and a spawned process can import this one's ``__main__``."""
    if (os.cpu_count() or 1) < 2:
        return False
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return main is not None  # python -m ...: imported by name
    file = getattr(main, "__file__", None)  # not so for ``python -c`` or a script on stdin
    return file is not None and Path(file).is_file()


def read_here(path: Path) -> Iterator[TraceRow]:
    """The rows of ``path``, parsed in this process."""
    with path.open(encoding="utf-8", newline="") as lines:
        try:
            yield from read_trace(lines, str(path))
        except UnicodeDecodeError as exc:
            raise not_text(path, exc) from None


def not_text(path: Path, exc: UnicodeDecodeError) -> QuotactlError:
    return TraceError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")


def _batches_from_worker(path: Path) -> Iterator[Iterable[TraceRow]]:
    """The rows of ``path`` in the worker's batches (parsed here if the worker cannot run)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_parse_worker, args=(str(path), sender), daemon=True)
    worker.start()
    sender.close()
    received = False
    try:
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
            if isinstance(message, tuple):
                raise TraceError(message[0], hint=message[1])
            yield message
    finally:
        receiver.close()
        if worker.is_alive():
            worker.terminate()
        worker.join()


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
        sender.send((exc.message, exc.hint))
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the simulation stopped reading (an error of its own, or ^C)
    finally:
        sender.close()
