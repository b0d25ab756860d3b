"""Opening the emulator's state file, and naming what is wrong with it when it fails.

A state file is created whole (built under a temporary name, then hard-linked into place),
so a zero-byte file is never one quotactl is still writing: it is refused, not taken for an
empty account. Every open runs ``PRAGMA quick_check`` (a damaged page is reported before
anything reads it). Each process using the file holds a shared ``flock`` on ``<file>-lock``
for as long as it has the file open, which is how ``local reset`` knows to refuse. SQLite's
failures (busy, read-only, disk full, damaged, unopenable) become ``StateError`` with a hint
that fits.

Only a file with quotactl's mark (``mark``) is ever deleted (``local reset``) or suggested
for deleting in a hint; a file made before the mark is stamped when opened.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import sqlite3
import time
import uuid
from pathlib import Path
from typing import IO, TYPE_CHECKING

from quotactl.core.files import check_ours, kind
from quotactl.emulator.store.mark import (
    APPLICATION_ID,
    NOT_OURS_HINT,
    WHAT,
    our_tables,
    recognised,
    refuse_foreign,
)
from quotactl.errors import StateError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

BUSY_TIMEOUT_S = 1.0
"""How long a write waits for another process's transaction before it is an error. The
emulator's own transactions take milliseconds; a longer hold is a stuck or foreign process."""
COMPANIONS = ("-wal", "-shm", "-lock")
_SHM_WRITE_LOCK = 120  # the WAL write lock's byte in the -shm file (SQLite's wal.c)

SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB = 11, 13, 14, 26


def companion(path: Path, suffix: str) -> Path:
    return Path(f"{path}{suffix}")


# -- opening ------------------------------------------------------------------------------
def prepare(path: Path, initialise: Callable[[sqlite3.Connection], None]) -> IO[bytes]:
    """Make ``path`` a usable state file (created with ``initialise`` if absent), refuse a
    zero-byte one, and return the shared hold that keeps ``local reset`` away."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, path, f"cannot create {exc.filename or path.parent}") from exc
    refuse_foreign(path)
    for _ in range(5):  # a concurrent `local reset` may delete the file under us: start over
        if not path.exists():
            _create(path, initialise)
        hold = _hold(path)
        if path.exists():
            break
        hold.close()
    else:  # e.g. a dangling symlink in the way
        raise StateError(
            f"cannot create the state file {path}",
            hint="point --state (or QUOTACTL_STATE) at a file in a writable directory",
        )
    wal = companion(path, "-wal")
    if path.stat().st_size == 0 and not (wal.exists() and wal.stat().st_size):
        hold.close()
        raise StateError(
            f"{path} is empty (0 bytes): it is not a {WHAT} (quotactl never leaves one empty)",
            hint=NOT_OURS_HINT,
        )
    return hold


def _create(path: Path, initialise: Callable[[sqlite3.Connection], None]) -> None:
    draft = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.new")
    try:
        with contextlib.closing(sqlite3.connect(draft, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("BEGIN IMMEDIATE")
            initialise(db)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("COMMIT")
        with contextlib.suppress(FileExistsError):  # another process created it first
            os.link(draft, path)
    except sqlite3.Error as exc:
        raise error_for(exc, path) or StateError(f"cannot create {path}: {exc}") from exc
    except OSError as exc:
        raise _os_error(exc, path, f"cannot create {path}") from exc
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(f"{draft}{suffix}")


def _hold(path: Path) -> IO[bytes]:
    lock = companion(path, "-lock")
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            hold = open(lock, "ab")  # noqa: SIM115 - held for the Store's lifetime
        except OSError as exc:
            raise _os_error(exc, path, f"cannot open {lock}") from exc
        try:
            fcntl.flock(hold, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # a `local reset` is deleting the state right now
            hold.close()
            if time.monotonic() > deadline:
                raise StateError(f"{path} is being reset by another process") from None
            time.sleep(0.02)
            continue
        if _same_file(hold, lock):
            return hold
        hold.close()  # the lock file was replaced while we waited: take the new one


def _same_file(handle: IO[bytes], path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except OSError:
        return False


def check(db: sqlite3.Connection, path: Path) -> int:
    """``PRAGMA quick_check`` (every page's structure, before a request reads any of it);
    returns the file's schema version (``PRAGMA user_version``). A state file made before
    quotactl's mark is stamped with it."""
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        mark = int(db.execute("PRAGMA application_id").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise error_for(exc, path) or _damaged(path, str(exc)) from exc
    if [tuple(r) for r in rows] != [("ok",)]:
        raise _damaged(path, "; ".join(str(r[0]) for r in rows))
    if mark == 0 and version and our_tables(path):
        with contextlib.suppress(sqlite3.Error):  # a read-only file stays usable unstamped
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    return version


def _damaged(path: Path, detail: str) -> StateError:
    if not recognised(path):
        return StateError(
            f"{path} is not a {WHAT} ({detail[:80]})",
            hint=NOT_OURS_HINT,
        )
    return StateError(
        f"the state file {path} is damaged ({detail[:300]})",
        hint="move it aside (`sqlite3 FILE .recover` may salvage it) or start over with "
        "`quotactl local reset`",
    )


def remove(path: Path) -> bool:
    """Delete the state and its companions unless another process has it open; refuse
    (``not-ours``, nothing deleted) anything that is no quotactl state file."""
    if os.path.lexists(path):
        check_ours(path, WHAT, recognised)
    elif not any(os.path.lexists(companion(path, s)) for s in COMPANIONS):
        return False
    for suffix in COMPANIONS:
        found = kind(companion(path, suffix))
        if found not in (None, "missing"):
            raise StateError(f"{companion(path, suffix)} is {found}: nothing was deleted")
    existed = path.exists()
    lock = companion(path, "-lock")
    with open(lock, "ab") as hold:
        try:
            fcntl.flock(hold, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            users = _users(lock, kind="FLOCK")
            raise StateError(
                f"{path} is in use by {_who(users) or 'another process'}; resetting it now "
                "would leave that process serving a deleted account",
                hint="stop it first (Ctrl-C in the `quotactl local serve` terminal), then reset",
            ) from None
        for suffix in ("", "-wal", "-shm", "-lock"):
            with contextlib.suppress(FileNotFoundError):
                companion(path, suffix).unlink()
    return existed


# -- what went wrong ----------------------------------------------------------------------
@contextlib.contextmanager
def mapped(path: Path) -> Iterator[None]:
    """Raise a ``StateError`` for SQLite's file-level failures; others pass unchanged."""
    try:
        yield
    except sqlite3.Error as exc:
        found = error_for(exc, path)
        if found is None:
            raise
        raise found from exc


def error_for(exc: sqlite3.Error, path: Path) -> StateError | None:
    """The ``StateError`` for a file-level SQLite failure (None for anything else)."""
    primary = int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    if primary in (SQLITE_BUSY, SQLITE_LOCKED):
        who = _who(_users(companion(path, "-shm"), kind="POSIX", byte=_SHM_WRITE_LOCK))
        return StateError(
            f"the state file {path} is locked{f' (in use by {who})' if who else ''}: "
            f"no write got through within "
            f"{BUSY_TIMEOUT_S:g}s",
            hint="wait for that process to finish, or stop it; quotactl processes share a "
            "state file, but not with one that keeps a transaction open",
        )
    if primary == SQLITE_READONLY:
        return _read_only(path)
    if primary == SQLITE_FULL or (primary == SQLITE_IOERR and _full(path)):
        return _disk_full(path)
    if primary in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return _damaged(path, str(exc))
    if primary == SQLITE_IOERR:
        return StateError(
            f"I/O error on the state file {path} ({exc})",
            hint="check the disk and filesystem it is on; the last change was not saved",
        )
    if primary == SQLITE_CANTOPEN:
        return StateError(
            f"cannot open the state file {path} ({exc})",
            hint="point --state (or QUOTACTL_STATE) at a file in a writable directory",
        )
    return None


def _os_error(exc: OSError, path: Path, what: str) -> StateError:
    if exc.errno == errno.ENOSPC:
        return _disk_full(path)
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return _read_only(path)
    return StateError(
        f"{what} for the state file: {exc.strerror or exc}",
        hint="point --state (or QUOTACTL_STATE) at a file in a writable directory",
    )


def _read_only(path: Path) -> StateError:
    where = path if path.exists() else path.parent
    try:
        on_ro_fs = bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    except OSError:
        on_ro_fs = False
    if on_ro_fs:
        return StateError(
            f"the state file {path} is on a read-only filesystem",
            hint="point --state (or QUOTACTL_STATE) at a file on a writable filesystem",
        )
    return StateError(
        f"the state file {path} is read-only",
        hint="make the file and its directory writable (the -wal and -shm files live next to "
        "it), or point --state at a writable file",
    )


def _full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent).free < 64 * 1024
    except OSError:
        return False


def _disk_full(path: Path) -> StateError:
    return StateError(
        f"no space left on the device holding {path}; the last change was not saved",
        hint=f"free space there (`df -h {path.parent}`) and run the command again; the state "
        "file itself is intact",
    )


def _who(pids: list[int]) -> str:
    """``PID 123 (quotactl local serve ...)`` for up to three processes ("" for none)."""
    return ", ".join(f"PID {pid}{_command(pid)}" for pid in pids[:3])


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
    for i, word in enumerate(words[:4]):
        if word == "quotactl" or word.endswith("/quotactl"):
            words = ["quotactl", *words[i + 1 :]]
            break
    text = " ".join(" ".join(words).split())
    return f" ({text[:60]})" if text else ""


def _users(path: Path, *, kind: str, byte: int | None = None) -> list[int]:
    """PIDs of other processes holding a lock on ``path`` (Linux's /proc/locks)."""
    try:
        st = os.stat(path)
        table = Path("/proc/locks").read_text()
    except OSError:
        return []
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found: list[int] = []
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[1] == "->" or fields[1] != kind or fields[5] != inode:
            continue
        pid = int(fields[4]) if fields[4].lstrip("-").isdigit() else -1
        if byte is not None and not (
            fields[3] == "WRITE"
            and int(fields[6]) <= byte
            and (fields[7] == "EOF" or byte <= int(fields[7]))
        ):
            continue
        if pid > 0 and pid != os.getpid() and pid not in found:
            found.append(pid)
    return found
