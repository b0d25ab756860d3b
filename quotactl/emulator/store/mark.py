"""quotactl's mark on its state files, and telling a state file from anything else.

A state file carries SQLite's ``PRAGMA application_id`` set to ``APPLICATION_ID`` when it is
created; one made before the mark is recognised by its tables (and stamped when opened). A
config, a text file, an empty file, a device or another program's database given as
``--state`` is refused before anything is created beside it, and left as it is.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from quotactl.core.files import kind
from quotactl.errors import StateError

APPLICATION_ID = 0x7163746C
"""quotactl's mark in a state file's header (``PRAGMA application_id``): "qctl" in ASCII."""
WHAT = "quotactl emulator state file"
_TABLES = frozenset({"account", "resources", "tags", "jobs"})
_SQLITE_MAGIC = b"SQLite format 3\0"
NOT_OURS_HINT = (
    "point --state (or QUOTACTL_STATE) at another path; quotactl creates a state file there "
    "and leaves this one as it is"
)


def recognised(path: Path) -> bool:
    """Whether ``path`` is a quotactl state file: an SQLite database with quotactl's mark,
    or without any mark and with quotactl's tables (a file made before the mark)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError:
        return False
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        return False
    mark = int.from_bytes(header[68:72], "big")
    if mark == APPLICATION_ID:
        return True
    return mark == 0 and our_tables(path)


def our_tables(path: Path) -> bool:
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except (sqlite3.Error, ValueError):
        return False
    return {str(row[0]) for row in rows} >= _TABLES


def refuse_foreign(path: Path) -> None:
    """Refuse, before anything is created beside it, a ``--state`` that is no state file."""
    if not os.path.lexists(path):
        return
    found = kind(path)
    if found == "missing":  # a link to nothing: SQLite would create the file it names
        raise StateError(f"{path} is a symbolic link to nothing, not a {WHAT}", hint=NOT_OURS_HINT)
    if found is not None:
        raise StateError(f"{path} is {found}, not a {WHAT}", hint=NOT_OURS_HINT)
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError:
        return  # opening it says what is wrong
    wal = Path(f"{path}-wal")
    if not header and not (wal.exists() and wal.stat().st_size):
        raise StateError(
            f"{path} is empty (0 bytes): it is not a {WHAT} (quotactl never leaves one empty)",
            hint=NOT_OURS_HINT,
        )
    if not header.startswith(_SQLITE_MAGIC):
        raise StateError(
            f"{path} is not a {WHAT} (it is no SQLite database: a config, a text file?)",
            hint=NOT_OURS_HINT,
        )
    mark = int.from_bytes(header[68:72], "big") if len(header) >= 72 else 0
    if mark not in (0, APPLICATION_ID):
        raise StateError(
            f"{path} is not a {WHAT} (it is another program's SQLite database)",
            hint=NOT_OURS_HINT,
        )
