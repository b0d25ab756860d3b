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

import contextlib
import json
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from quotactl.core.engine import FINAL, HOLDING, JobStatus
from quotactl.emulator.models import (
    SETTLING,
    JobQueue,
    QuotaShare,
    Record,
    SchedulingPolicy,
    ServiceEnvironment,
    ServiceJob,
    Settling,
)
from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE account (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    account_id TEXT NOT NULL,
    region TEXT NOT NULL,
    clock REAL NOT NULL,   -- emulated epoch seconds at wall time `anchor`
    anchor REAL NOT NULL,  -- wall epoch seconds when `clock` was last set
    speed REAL NOT NULL,   -- emulated seconds per wall second (local serve --speed), else 0
    next_due REAL,         -- earliest emulated time at which something changes by itself
    generation INTEGER NOT NULL DEFAULT 0  -- bumped by every write transaction
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
    due_at REAL            -- when the job's status next changes by itself (an event)
);
CREATE INDEX jobs_by_queue ON jobs (queue_ref, status, seq);
CREATE INDEX jobs_in_order ON jobs (queue_ref, status, priority DESC, seq);
CREATE INDEX jobs_in_share_order ON jobs (queue_ref, share, status, priority DESC, seq);
CREATE INDEX jobs_due ON jobs (due_at, queue_ref) WHERE due_at IS NOT NULL;
CREATE INDEX jobs_by_status ON jobs (status, seq);
CREATE INDEX jobs_by_token ON jobs (client_token) WHERE client_token IS NOT NULL;
"""

_TO_VERSION_2 = """
ALTER TABLE account ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE resources ADD COLUMN due_at REAL;
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN due_at REAL;
CREATE INDEX resources_due ON resources (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX jobs_in_order ON jobs (queue_ref, status, priority DESC, seq);
CREATE INDEX jobs_in_share_order ON jobs (queue_ref, share, status, priority DESC, seq);
CREATE INDEX jobs_due ON jobs (due_at, queue_ref) WHERE due_at IS NOT NULL;
UPDATE resources SET due_at = json_extract(doc, '$.status_since')
    WHERE json_extract(doc, '$.status') IN ('CREATING', 'UPDATING', 'DELETING');
UPDATE jobs SET priority = coalesce(json_extract(doc, '$.priority'), 0),
    due_at = (SELECT clock FROM account) WHERE status NOT IN ('SUCCEEDED', 'FAILED');
UPDATE account SET next_due = clock
"""
"""Schema 1 -> 2: every unfinished job is looked at by the next request, which re-arms it."""

R = TypeVar("R", bound=Record)
KINDS: dict[str, type[Record]] = {
    cls.KIND: cls for cls in (SchedulingPolicy, ServiceEnvironment, JobQueue, QuotaShare)
}


class StateError(QuotactlError):
    """The state file cannot be used (written by a newer quotactl, or not a state file)."""

    code = "emulator-state"


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

    def generation(self) -> int:
        return int(self.db.execute("SELECT generation FROM account").fetchone()[0])

    def set_clock(self, clock: Clock) -> None:
        self.db.execute(
            "UPDATE account SET clock = ?, anchor = ?, speed = ?",
            (clock.clock, clock.anchor, clock.speed),
        )

    def written(self, next_due: float | None) -> int:
        """End of a write: store the next event time, bump the generation; returns it."""
        row = self.db.execute(
            "UPDATE account SET next_due = ?, generation = generation + 1 RETURNING generation",
            (next_due,),
        ).fetchone()
        return int(row[0])

    # -- resources -----------------------------------------------------------------------
    def get(self, cls: type[R], name: str, parent: str = "") -> R | None:
        row = self.db.execute(
            "SELECT doc, seq FROM resources WHERE kind = ? AND parent = ? AND name = ?",
            (cls.KIND, parent, name),
        ).fetchone()
        return None if row is None else cls.from_doc(json.loads(row[0]), row[1])

    def record(self, cls: type[R], seq: int) -> R | None:
        row = self.db.execute(
            "SELECT doc FROM resources WHERE seq = ? AND kind = ?", (seq, cls.KIND)
        ).fetchone()
        return None if row is None else cls.from_doc(json.loads(row[0]), seq)

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
            "INSERT INTO resources (kind, parent, name, arn, doc, due_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                record.KIND,
                record.parent,
                record.name,
                record.arn,
                json.dumps(record.doc()),
                _settling_since(record),
            ),
        )
        record.seq = int(cur.lastrowid or 0)

    def update(self, record: Record) -> None:
        self.db.execute(
            "UPDATE resources SET doc = ?, due_at = ? WHERE seq = ?",
            (json.dumps(record.doc()), _settling_since(record), record.seq),
        )

    def delete(self, record: Record) -> None:
        self.db.execute("DELETE FROM resources WHERE seq = ?", (record.seq,))
        self.db.execute("DELETE FROM tags WHERE arn = ?", (record.arn,))

    def settling(self, since_before: float) -> list[Record]:
        """Resources CREATING, UPDATING or DELETING since at most ``since_before``."""
        rows = self.db.execute(
            "SELECT kind, doc, seq FROM resources INDEXED BY resources_due WHERE due_at <= ?",
            (since_before,),
        )
        return [KINDS[k].from_doc(json.loads(d), s) for k, d, s in sorted(rows, key=_last)]

    def first_settling(self) -> float | None:
        """When the oldest pending CREATING/UPDATING/DELETING step began."""
        sql = "SELECT min(due_at) FROM resources WHERE due_at IS NOT NULL"
        return self.db.execute(sql).fetchone()[0]  # type: ignore[no-any-return]

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

    def insert_job(self, job: ServiceJob, due_at: float | None) -> None:
        cur = self.db.execute(
            "INSERT INTO jobs (job_id, queue_ref, share, status, client_token, doc) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (job.job_id, job.queue_ref, job.share, job.status, job.client_token, "{}"),
        )
        job.seq = int(cur.lastrowid or 0)
        self.save_job(job, due_at)

    def save_job(self, job: ServiceJob, due_at: float | None) -> None:
        """Store the job; ``due_at``: when its status next changes by itself (None: never)."""
        self.db.execute(
            "UPDATE jobs SET status = ?, priority = ?, due_at = ?, doc = ? WHERE seq = ?",
            (job.status, job.priority or 0, due_at, json.dumps(job.doc()), job.seq),
        )

    def update_job(self, job: ServiceJob) -> None:
        """Store the job's record, keeping when its status next changes by itself."""
        self.db.execute(
            "UPDATE jobs SET status = ?, priority = ?, doc = ? WHERE seq = ?",
            (job.status, job.priority or 0, json.dumps(job.doc()), job.seq),
        )

    def jobs(
        self,
        *,
        queue_ref: int | None = None,
        statuses: tuple[str, ...] | None = None,
        share: str | None = None,
        before: int | None = None,
        newest_first: bool = True,
        in_queue_order: bool = False,
        limit: int = -1,
    ) -> list[ServiceJob]:
        """Jobs by seq (newest first unless told), or in queue order: priority, then seq."""
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
        if in_queue_order:
            sql += " ORDER BY priority DESC, seq ASC LIMIT ?"
        else:
            sql += f" ORDER BY seq {'DESC' if newest_first else 'ASC'} LIMIT ?"
        args.append(limit)
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in self.db.execute(sql, args)]

    def due_queues(self, until: float) -> list[int]:
        """Queues with a job whose status changes by itself at or before ``until``."""
        rows = self.db.execute(
            "SELECT DISTINCT queue_ref FROM jobs INDEXED BY jobs_due WHERE due_at <= ?", (until,)
        )
        return sorted(r[0] for r in rows)

    def due_jobs(self, queue_ref: int, until: float) -> list[ServiceJob]:
        rows = self.db.execute(
            "SELECT doc, seq FROM jobs INDEXED BY jobs_due WHERE due_at <= ? AND queue_ref = ?",
            (until, queue_ref),
        )
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in sorted(rows, key=_last)]

    def first_job_event(self) -> float | None:
        sql = "SELECT min(due_at) FROM jobs WHERE due_at IS NOT NULL"
        return self.db.execute(sql).fetchone()[0]  # type: ignore[no-any-return]

    def queue_front(
        self, queue_ref: int, share: str | None = None, limit: int = -1
    ) -> list[tuple[str, float, str | None, int, int]]:
        """RUNNABLE jobs in queue order: (jobArn, status_since, share, priority, seq) each."""
        sql = (
            "SELECT json_extract(doc, '$.arn'), json_extract(doc, '$.status_since'), share, "
            "priority, seq FROM jobs WHERE queue_ref = ? AND status = ?"
        )
        args: list[Any] = [queue_ref, JobStatus.RUNNABLE]
        if share is not None:
            sql += " AND share = ?"
            args.append(share)
        sql += " ORDER BY priority DESC, seq ASC LIMIT ?"
        return list(self.db.execute(sql, [*args, limit]))

    def queued_and_active(self, queue_ref: int) -> list[ServiceJob]:
        """A queue's RUNNABLE, SCHEDULED, STARTING and RUNNING jobs, oldest first."""
        live = (JobStatus.RUNNABLE, *HOLDING)
        return self.jobs(queue_ref=queue_ref, statuses=live, newest_first=False)

    def queues_with_work(self) -> list[int]:
        """Queues that have unfinished jobs."""
        marks = ", ".join("?" * len(FINAL))
        rows = self.db.execute(
            f"SELECT DISTINCT queue_ref FROM jobs WHERE status NOT IN ({marks})", FINAL
        )
        return [r[0] for r in rows]


def _last(row: tuple[Any, ...]) -> int:
    return int(row[-1])


def _settling_since(record: Record) -> float | None:
    if isinstance(record, Settling) and record.status in SETTLING:
        return record.status_since
    return None


class Store:
    """A pool of connections to one state file; ``transaction()`` is the only way in.

    Connections are pooled rather than per thread because ``local serve`` answers each
    request on a fresh thread; ``close()`` closes them all (tests run with warnings as errors).
    """

    def __init__(self, path: Path, *, account_id: str, region: str, wall: float) -> None:
        self.path = path
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._closed = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateError(
                f"cannot create {exc.filename or path.parent} for the state file: {exc.strerror}",
                hint="point --state (or QUOTACTL_STATE) at a file in a writable directory",
            ) from exc
        with self.transaction() as tx:
            self._migrate(tx.db, account_id=account_id, region=region, wall=wall)

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:  # a directory, a missing or unwritable parent
            raise StateError(
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
            raise StateError(
                f"{self.path} is not a quotactl emulator state file ({exc})",
                hint="point --state at another file, or run `quotactl local reset`",
            ) from exc
        return db

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Tx]:
        """``BEGIN IMMEDIATE`` (``write``) or ``BEGIN DEFERRED`` ... ``COMMIT``, or
        ``ROLLBACK`` on any exception. A read sees the last committed state and never waits
        for a writer; this process's writers take turns on a lock before SQLite's."""
        db = self._checkout()
        try:
            with self._write_lock if write else contextlib.nullcontext():
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
                try:
                    yield Tx(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
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
                "INSERT INTO account VALUES (1, ?, ?, ?, ?, 0, NULL, 0)",
                (account_id, region, wall, wall),
            )
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version == 1:
            for statement in _TO_VERSION_2.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
