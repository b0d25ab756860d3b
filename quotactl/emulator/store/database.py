"""The emulated account on disk: one SQLite file, one short transaction per request.

Why SQLite: several quotactl processes and a ``local serve`` may share one state file. The
journal is WAL, so readers never block the writer nor wait for it: a read runs in ``BEGIN
DEFERRED`` and takes no lock a writer waits on; a write runs in ``BEGIN IMMEDIATE`` (writers
of one process queue on a lock, those of other processes on the busy timeout). Every write
bumps ``account.generation``, so a process knows when another one has written. The schema
carries a version (``PRAGMA user_version``) so an older quotactl refuses a newer file instead
of corrupting it. Rows hold one JSON document each plus the few columns that are indexed;
``due_at`` (jobs and resources) is when the row next changes by itself, so the next event of
the account is one index lookup, never a scan.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

from quotactl.core.states import CHANGING, FINAL
from quotactl.emulator.store import statefile
from quotactl.emulator.store.transaction import Clock, Tx
from quotactl.errors import StateError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

SCHEMA_VERSION = 4


def _sql_list(values: Iterable[str]) -> str:
    """SQL text of a list of status values (constants of ours, never user input)."""
    return ", ".join(f"'{v}'" for v in values)


BUSY_TIMEOUT_MS = int(statefile.BUSY_TIMEOUT_S * 1000)

_SCHEMA = """
CREATE TABLE account (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    account_id TEXT NOT NULL,
    region TEXT NOT NULL,
    clock REAL NOT NULL,   -- emulated epoch seconds at wall time `anchor`
    anchor REAL NOT NULL,  -- wall epoch seconds when `clock` was last set
    speed REAL NOT NULL,   -- emulated seconds per wall second (local serve --speed), else 0
    next_due REAL,         -- earliest emulated time at which something changes by itself
    generation INTEGER NOT NULL DEFAULT 0,  -- bumped by every write transaction
    variant TEXT NOT NULL DEFAULT 'default',  -- 'default' or 'strict' (docs/emulator.md)
    list_lag INTEGER NOT NULL DEFAULT 0,  -- strict: listing reads a created thing is hidden for
    lagging TEXT NOT NULL DEFAULT '{}'  -- strict: ARN -> listing reads it stays hidden for
);
CREATE TABLE resources (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    parent TEXT NOT NULL,  -- quota shares: their job queue's name, others: ''
    name TEXT NOT NULL,
    arn TEXT NOT NULL UNIQUE,
    doc TEXT NOT NULL,
    due_at REAL            -- when a CREATING/UPDATING/DELETING step completes
);
CREATE UNIQUE INDEX resources_by_name ON resources (kind, parent, name);
CREATE INDEX resources_due ON resources (due_at) WHERE due_at IS NOT NULL;
CREATE TABLE tags (
    arn TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (arn, key)
) WITHOUT ROWID;
CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    queue_ref INTEGER NOT NULL,
    share TEXT,
    status TEXT NOT NULL,
    client_token TEXT,
    doc TEXT NOT NULL,
    priority INTEGER NOT NULL DEFAULT 0,
    due_at REAL,           -- when the job's status next changes by itself (an event)
    engine TEXT,           -- what the scheduling engine needs of an unfinished job (JSON)
    summary TEXT           -- its ListServiceJobs item (JSON), NULL until first written
);
CREATE INDEX jobs_by_queue ON jobs (queue_ref, status, seq);
CREATE INDEX jobs_in_order ON jobs (queue_ref, status, priority DESC, seq);
CREATE INDEX jobs_in_share_order ON jobs (queue_ref, share, status, priority DESC, seq);
CREATE INDEX jobs_due ON jobs (due_at, queue_ref) WHERE due_at IS NOT NULL;
CREATE INDEX jobs_by_share ON jobs (queue_ref, share, status, seq);
CREATE INDEX jobs_by_status ON jobs (status, seq);
CREATE INDEX jobs_by_token ON jobs (client_token) WHERE client_token IS NOT NULL;
"""

_TO_VERSION_2 = f"""
ALTER TABLE account ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE resources ADD COLUMN due_at REAL;
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN due_at REAL;
ALTER TABLE jobs ADD COLUMN engine TEXT;
CREATE INDEX resources_due ON resources (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX jobs_in_order ON jobs (queue_ref, status, priority DESC, seq);
CREATE INDEX jobs_in_share_order ON jobs (queue_ref, share, status, priority DESC, seq);
CREATE INDEX jobs_due ON jobs (due_at, queue_ref) WHERE due_at IS NOT NULL;
UPDATE resources SET due_at = json_extract(doc, '$.status_since')
    WHERE json_extract(doc, '$.status') IN ({_sql_list(CHANGING)});
UPDATE jobs SET priority = coalesce(json_extract(doc, '$.priority'), 0),
    due_at = (SELECT clock FROM account) WHERE status NOT IN ({_sql_list(FINAL)});
UPDATE account SET next_due = clock
"""
"""Schema 1 -> 2: every unfinished job is looked at by the next request, which re-arms it."""

_TO_VERSION_3 = """
ALTER TABLE jobs ADD COLUMN summary TEXT;
CREATE INDEX jobs_by_share ON jobs (queue_ref, share, status, seq)
"""
"""Schema 2 -> 3: listings read a stored summary (a row without one is summarised from its
document) and page a share's jobs by index."""

_TO_VERSION_4 = """
ALTER TABLE account ADD COLUMN variant TEXT NOT NULL DEFAULT 'default';
ALTER TABLE account ADD COLUMN list_lag INTEGER NOT NULL DEFAULT 0;
ALTER TABLE account ADD COLUMN lagging TEXT NOT NULL DEFAULT '{}'
"""
"""Schema 3 -> 4: the emulator's variant (default or strict) and the strict listings' lag."""

__all__ = ["Clock", "Store", "Tx"]


class Store:
    """A pool of connections to one state file; ``transaction()`` is the only way in.

    Connections are pooled rather than per thread because ``local serve`` answers each
    request on a fresh thread; ``close()`` closes them all (tests run with warnings as errors).
    """

    def __init__(self, path: Path, *, account_id: str, region: str, wall: float) -> None:
        self.path = path
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()  # this process's writers queue here, not on SQLite
        # This process's readers take turns too: SQLite hands the GIL back at every row, and
        # threads stepping rows at once cost two to three times the CPU of one after another.
        self._read_lock = threading.RLock()
        self._closed = False
        self._hold = statefile.prepare(
            path, lambda db: self._migrate(db, account_id=account_id, region=region, wall=wall)
        )
        try:
            db = self._checkout()
            try:
                version = statefile.check(db, path)
            finally:
                self._checkin(db)
            if version != SCHEMA_VERSION:  # a current file is opened without the write lock
                with self.transaction() as tx:
                    self._migrate(tx.db, account_id=account_id, region=region, wall=wall)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:  # a directory, a missing or unwritable parent
            raise statefile.error_for(exc, self.path) or StateError(
                f"cannot open the state file {self.path} ({exc})",
                hint="point --state (or QUOTACTL_STATE) at a file in a writable directory",
            ) from exc
        try:
            db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StateError(f"{self.path}: cannot switch the state file to WAL mode")
            db.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.DatabaseError as exc:
            db.close()
            found = statefile.error_for(exc, self.path)
            if found is not None and exc.sqlite_errorcode & 0xFF != statefile.SQLITE_NOTADB:
                raise found from exc
            raise StateError(
                f"{self.path} is not a quotactl emulator state file ({exc})",
                hint="point --state (or QUOTACTL_STATE) at another path; quotactl leaves "
                "this one as it is",
            ) from exc
        return db

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Tx]:
        """``BEGIN IMMEDIATE`` (``write``) or ``BEGIN DEFERRED`` ... ``COMMIT``, or
        ``ROLLBACK`` on any exception. A read sees the last committed state and never waits
        for a writer; this process's writers take turns on a lock before SQLite's, and its
        readers on another."""
        with self._write_lock if write else self._read_lock:
            db = self._checkout()  # under the lock: one connection (and page cache) per kind
            try:
                with statefile.mapped(self.path):
                    db.execute("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
                    try:
                        yield Tx(db)
                    except BaseException:
                        if db.in_transaction:
                            db.execute("ROLLBACK")
                        raise
                    try:
                        db.execute("COMMIT")
                    except sqlite3.Error:  # e.g. the disk filled up: leave the connection clean
                        if db.in_transaction:
                            db.execute("ROLLBACK")
                        raise
            finally:
                self._checkin(db)

    def _checkout(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise StateError(f"{self.path}: the emulator was closed")
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _checkin(self, db: sqlite3.Connection) -> None:
        with self._lock:
            if self._closed:
                db.close()
            else:
                self._idle.append(db)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()
        self._hold.close()

    @staticmethod
    def _migrate(db: sqlite3.Connection, *, account_id: str, region: str, wall: float) -> None:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StateError(
                f"the emulator state was written by a newer quotactl (schema {version}, "
                f"this one reads up to {SCHEMA_VERSION})",
                hint="upgrade quotactl, or start over with `quotactl local reset`",
            )
        if version == 0:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise StateError("the state file holds tables that quotactl did not create")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO account VALUES (1, ?, ?, ?, ?, 0, NULL, 0, 'default', 0, '{}')",
                (account_id, region, wall, wall),
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version < SCHEMA_VERSION:
            steps = {1: _TO_VERSION_2, 2: _TO_VERSION_3, 3: _TO_VERSION_4}
            for step in range(version, SCHEMA_VERSION):
                for statement in steps[step].split(";"):
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
