"""The emulated account on disk: one SQLite file, one short write transaction per request.

Why SQLite: several quotactl processes and a ``local serve`` may share one state file, so
every request runs in ``BEGIN IMMEDIATE`` (writers queue on the busy timeout instead of
failing), the journal is WAL (readers never block the writer) and the schema carries a
version (``PRAGMA user_version``) so an older quotactl refuses a newer file instead of
corrupting it. Rows hold one JSON document each plus the few columns that are indexed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from quotactl.emulator import statefile
from quotactl.emulator.models import (
    TERMINAL,
    JobQueue,
    QuotaShare,
    Record,
    SchedulingPolicy,
    ServiceEnvironment,
    ServiceJob,
)
from quotactl.emulator.statefile import StateError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = int(statefile.BUSY_TIMEOUT_S * 1000)

_SCHEMA = """
CREATE TABLE account (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    account_id TEXT NOT NULL,
    region TEXT NOT NULL,
    clock REAL NOT NULL,   -- emulated epoch seconds at wall time `anchor`
    anchor REAL NOT NULL,  -- wall epoch seconds when `clock` was last set
    speed REAL NOT NULL,   -- emulated seconds per wall second (local serve --speed), else 0
    next_due REAL          -- earliest emulated time at which something changes by itself
);
CREATE TABLE resources (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    parent TEXT NOT NULL,  -- quota shares: their job queue's name, others: ''
    name TEXT NOT NULL,
    arn TEXT NOT NULL UNIQUE,
    doc TEXT NOT NULL
);
CREATE UNIQUE INDEX resources_by_name ON resources (kind, parent, name);
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
    doc TEXT NOT NULL
);
CREATE INDEX jobs_by_queue ON jobs (queue_ref, status, seq);
CREATE INDEX jobs_by_status ON jobs (status, seq);
CREATE INDEX jobs_by_token ON jobs (client_token) WHERE client_token IS NOT NULL;
"""

R = TypeVar("R", bound=Record)
KINDS: dict[str, type[Record]] = {
    cls.KIND: cls for cls in (SchedulingPolicy, ServiceEnvironment, JobQueue, QuotaShare)
}


@dataclass
class Clock:
    """The emulated clock as stored: ``now = clock + speed * (wall - anchor)``."""

    clock: float
    anchor: float
    speed: float

    def at(self, wall: float) -> float:
        return self.clock + self.speed * max(0.0, wall - self.anchor)


class Tx:
    """One request's view of the account: typed reads and writes inside one transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- account row ---------------------------------------------------------------------
    def account_row(self) -> tuple[str, str, Clock, float | None]:
        row = self.db.execute(
            "SELECT account_id, region, clock, anchor, speed, next_due FROM account"
        ).fetchone()
        return row[0], row[1], Clock(row[2], row[3], row[4]), row[5]

    def set_clock(self, clock: Clock) -> None:
        self.db.execute(
            "UPDATE account SET clock = ?, anchor = ?, speed = ?",
            (clock.clock, clock.anchor, clock.speed),
        )

    def set_next_due(self, due: float | None) -> None:
        self.db.execute("UPDATE account SET next_due = ?", (due,))

    def wake(self, at: float) -> None:
        """Make the next request at or after emulated time ``at`` run the scheduler tick."""
        self.db.execute("UPDATE account SET next_due = min(coalesce(next_due, ?), ?)", (at, at))

    # -- resources -----------------------------------------------------------------------
    def get(self, cls: type[R], name: str, parent: str = "") -> R | None:
        row = self.db.execute(
            "SELECT doc, seq FROM resources WHERE kind = ? AND parent = ? AND name = ?",
            (cls.KIND, parent, name),
        ).fetchone()
        return None if row is None else cls.from_doc(json.loads(row[0]), row[1])

    def by_arn(self, arn: str) -> Record | None:
        row = self.db.execute("SELECT kind, doc, seq FROM resources WHERE arn = ?", (arn,))
        found = row.fetchone()
        if found is None:
            return None
        return KINDS[found[0]].from_doc(json.loads(found[1]), found[2])

    def records(
        self, cls: type[R], *, parent: str | None = None, after: int = 0, limit: int = -1
    ) -> list[R]:
        sql = "SELECT doc, seq FROM resources WHERE kind = ? AND seq > ?"
        args: list[Any] = [cls.KIND, after]
        if parent is not None:
            sql += " AND parent = ?"
            args.append(parent)
        sql += " ORDER BY seq LIMIT ?"
        args.append(limit)
        return [cls.from_doc(json.loads(d), s) for d, s in self.db.execute(sql, args)]

    def count(self, cls: type[Record], parent: str | None = None) -> int:
        if parent is None:
            sql, args = "SELECT count(*) FROM resources WHERE kind = ?", [cls.KIND]
        else:
            sql = "SELECT count(*) FROM resources WHERE kind = ? AND parent = ?"
            args = [cls.KIND, parent]
        return int(self.db.execute(sql, args).fetchone()[0])

    def insert(self, record: Record) -> None:
        cur = self.db.execute(
            "INSERT INTO resources (kind, parent, name, arn, doc) VALUES (?, ?, ?, ?, ?)",
            (record.KIND, record.parent, record.name, record.arn, json.dumps(record.doc())),
        )
        record.seq = int(cur.lastrowid or 0)

    def update(self, record: Record) -> None:
        self.db.execute(
            "UPDATE resources SET doc = ? WHERE seq = ?", (json.dumps(record.doc()), record.seq)
        )

    def delete(self, record: Record) -> None:
        self.db.execute("DELETE FROM resources WHERE seq = ?", (record.seq,))
        self.db.execute("DELETE FROM tags WHERE arn = ?", (record.arn,))

    def settling(self) -> list[Record]:
        """Resources whose status is CREATING, UPDATING or DELETING."""
        rows = self.db.execute(
            "SELECT kind, doc, seq FROM resources WHERE kind != ? "
            "AND json_extract(doc, '$.status') IN ('CREATING', 'UPDATING', 'DELETING') "
            "ORDER BY seq",
            (SchedulingPolicy.KIND,),
        )
        return [KINDS[k].from_doc(json.loads(d), s) for k, d, s in rows]

    # -- tags ----------------------------------------------------------------------------
    def tags(self, arn: str) -> dict[str, str]:
        rows = self.db.execute("SELECT key, value FROM tags WHERE arn = ? ORDER BY key", (arn,))
        return dict(rows.fetchall())

    def set_tags(self, arn: str, tags: dict[str, str]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO tags (arn, key, value) VALUES (?, ?, ?)",
            [(arn, k, v) for k, v in tags.items()],
        )

    def remove_tags(self, arn: str, keys: list[str]) -> None:
        self.db.executemany("DELETE FROM tags WHERE arn = ? AND key = ?", [(arn, k) for k in keys])

    # -- service jobs --------------------------------------------------------------------
    def job(self, job_id: str) -> ServiceJob | None:
        row = self.db.execute("SELECT doc, seq FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None else ServiceJob.from_doc(json.loads(row[0]), row[1])

    def job_by_token(self, token: str) -> ServiceJob | None:
        row = self.db.execute(
            "SELECT doc, seq FROM jobs WHERE client_token = ?", (token,)
        ).fetchone()
        return None if row is None else ServiceJob.from_doc(json.loads(row[0]), row[1])

    def insert_job(self, job: ServiceJob) -> None:
        cur = self.db.execute(
            "INSERT INTO jobs (job_id, queue_ref, share, status, client_token, doc) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (job.job_id, job.queue_ref, job.share, job.status, job.client_token, "{}"),
        )
        job.seq = int(cur.lastrowid or 0)
        self.save_job(job)

    def save_job(self, job: ServiceJob) -> None:
        self.db.execute(
            "UPDATE jobs SET status = ?, doc = ? WHERE seq = ?",
            (job.status, json.dumps(job.doc()), job.seq),
        )

    def jobs(
        self,
        *,
        queue_ref: int | None = None,
        statuses: tuple[str, ...] | None = None,
        share: str | None = None,
        before: int | None = None,
        newest_first: bool = True,
        limit: int = -1,
    ) -> list[ServiceJob]:
        where, args = [], []  # type: tuple[list[str], list[Any]]
        if queue_ref is not None:
            where.append("queue_ref = ?")
            args.append(queue_ref)
        if statuses is not None:
            where.append(f"status IN ({', '.join('?' * len(statuses))})")
            args.extend(statuses)
        if share is not None:
            where.append("share = ?")
            args.append(share)
        if before is not None:
            where.append("seq < ?")
            args.append(before)
        sql = "SELECT doc, seq FROM jobs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY seq {'DESC' if newest_first else 'ASC'} LIMIT ?"
        args.append(limit)
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in self.db.execute(sql, args)]

    def unfinished_jobs(self) -> list[ServiceJob]:
        marks = ", ".join("?" * len(TERMINAL))
        rows = self.db.execute(
            f"SELECT doc, seq FROM jobs WHERE status NOT IN ({marks}) ORDER BY seq", TERMINAL
        )
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in rows]


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
                hint="point --state at another file, or run `quotactl local reset`",
            ) from exc
        return db

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (or ``ROLLBACK`` on any exception)."""
        db = self._checkout()
        try:
            with self._write_lock, statefile.mapped(self.path):
                db.execute("BEGIN IMMEDIATE")
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
                "INSERT INTO account VALUES (1, ?, ?, ?, ?, 0, NULL)",
                (account_id, region, wall, wall),
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
