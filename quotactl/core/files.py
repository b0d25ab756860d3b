"""Every file a command reads or writes goes through here: one rule for what a path may be,
and one way to write (a temporary file beside the target, renamed over it when complete).

A path that exists but is no regular file (a directory, a device such as ``/dev/null``, a
named pipe, a socket) is refused with ``io-error`` naming what it is, before anything is read
or written. A write never leaves a partial file: it goes to a hidden temporary file in the
target's directory, which replaces the target in one rename once the content is complete and
is removed on any failure or interrupt. Nothing is created outside the target's directory.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from typing import TYPE_CHECKING, TextIO

from quotactl.errors import FileIOError, FileTooLargeError

MiB = 1024 * 1024
MAX_CONFIG_BYTES = 8 * MiB
"""One config file: a platform of a thousand shares is well under 1 MiB."""
MAX_JOB_SPEC_BYTES = 1 * MiB
"""One job spec: AWS takes a CreateTrainingJob request of a few hundred KiB at most."""
MAX_TRACE_BYTES = 4 * 1024 * MiB
"""One trace: 4 GiB is some 60 million jobs, hours of replay."""

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def kind(path: Path) -> str | None:
    """What ``path`` is when it is no regular file ("a directory", "a device", "missing"...);
    None for a regular file (or a link to one)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing (a parent is a file)"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_readable(path: Path, what: str, *, hint: str | None = None) -> None:
    """Raise ``io-error`` unless ``path`` is a regular file (``what`` names it: "job spec")."""
    found = kind(path)
    if found is None:
        return
    if found == "missing":
        raise FileIOError(f"{what} {path} does not exist", hint=hint)
    raise FileIOError(f"{what} {path} is {found}, not a file", hint=hint)


def check_size(path: Path, limit: int, what: str) -> None:
    """``file-too-large`` for a file over ``limit`` bytes, before any of it is read."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # reading it says what is wrong
    if size > limit:
        raise FileTooLargeError(
            f"{what} {path} is {_size(size)}; a {what} may be at most {_size(limit)}",
            hint="is it the file you meant? nothing was read",
        )


def _size(count: int) -> str:
    if count >= 1024 * MiB:
        return f"{count / (1024 * MiB):.1f} GiB"
    if count >= MiB:
        return f"{count / MiB:.1f} MiB"
    return f"{count:,} bytes"


def check_writable(path: Path, what: str) -> None:
    """Raise ``io-error`` unless ``path`` can be written as a file: missing or a regular file,
    in a directory that exists (it is not created)."""
    found = kind(path)
    if found is not None and found != "missing":
        raise FileIOError(
            f"{what} {path} is {found}, not a file; nothing was written",
            hint="give the path of a file to create or replace",
        )
    parent = path.parent
    parent_kind = kind(parent)
    if parent_kind != "a directory":
        shown = "does not exist" if parent_kind == "missing" else f"is {parent_kind}"
        raise FileIOError(
            f"cannot write {what} {path}: directory {parent} {shown}; nothing was written",
            hint="create the directory first, or give a path in one that exists",
        )


@contextlib.contextmanager
def replacing(path: Path, what: str) -> Iterator[TextIO]:
    """A stream whose content becomes ``path`` whole when the block ends without an error, and
    never at all otherwise (UTF-8, ``\\n`` line endings). ``what`` names the file in errors."""
    check_writable(path, what)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        # O_EXCL: never follow or reuse someone else's file; mode 0666 less the umask, like
        # any file the user creates.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise FileIOError(
            f"cannot write {what} {path}: {exc.strerror or exc}; nothing was written"
        ) from None
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as text:
            yield text
        os.replace(temporary, path)
    except OSError as exc:
        _remove(temporary)
        raise FileIOError(
            f"cannot write {what} {path}: {exc.strerror or exc}; nothing was written"
        ) from None
    except BaseException:
        _remove(temporary)
        raise


def write_text(path: Path, what: str, text: str) -> None:
    """``path`` replaced by ``text`` in one rename."""
    with replacing(path, what) as out:
        out.write(text)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
