"""Where simulation touches the machine: opening files, temporary directories, worker processes.

Everything else in ``quotactl.core.simulate`` is logic over iterables and values; it reaches
files and processes only through these functions. A worker is spawned, never forked (safe
whatever the parent runs), and talks back over a one-way pipe.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from multiprocessing.connection import Connection


def read_text(path: Path | str) -> TextIO:
    """``path`` opened for reading as UTF-8 text, line endings as they are in the file."""
    return open(path, encoding="utf-8", newline="")


def write_text(path: Path | str) -> TextIO:
    """``path`` created (or emptied) for writing UTF-8 text, ``\\n`` line endings."""
    return open(path, "w", encoding="utf-8", newline="")


def is_file(path: Path) -> bool:
    return path.is_file()


def size(path: Path) -> int:
    """Bytes in the file at ``path``."""
    return path.stat().st_size


@contextmanager
def temporary_directory(prefix: str) -> Iterator[Path]:
    """A fresh directory, removed with everything in it on leaving."""
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        yield Path(folder)


def can_spawn() -> bool:
    """Two cores or more, and a spawned process can import this one's ``__main__``."""
    if (os.cpu_count() or 1) < 2:
        return False
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return main is not None  # python -m ...: imported by name
    file = getattr(main, "__file__", None)  # not so for ``python -c`` or a script on stdin
    return file is not None and Path(file).is_file()


@contextmanager
def worker(target: Callable[..., None], *args: object) -> Iterator[Connection]:
    """Run ``target(*args, sender)`` in a spawned process; yield the pipe's receiving end.

    On leaving, the pipe is closed and the process is stopped (if it still runs) and joined.
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=target, args=(*args, sender), daemon=True)
    process.start()
    sender.close()
    try:
        yield receiver
    finally:
        receiver.close()
        if process.is_alive():
            process.terminate()
        process.join()
