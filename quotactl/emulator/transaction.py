"""One request's view of the emulated account: typed reads and writes in one transaction.

``Tx`` is what handlers and the state machine see of the state file (``store.py`` opens it
and runs the transactions): resources, tags and service jobs as records (``models.py``),
plus the indexed columns that make a request cost what it touches, not what the account
holds: a job's ``status``, ``priority`` and ``due_at`` (when it next changes by itself), a
resource's ``due_at`` (when its CREATING/UPDATING/DELETING step began).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from quotactl.core.engine import FINAL, HOLDING, JobStatus
from quotactl.emulator import jobs
from quotactl.emulator.models import (
    SETTLING,
    JobQueue,
    QuotaShare,
    Record,
    SchedulingPolicy,
    ServiceEnvironment,
    Settling,
)
from quotactl.emulator.service_job import ServiceJob

if TYPE_CHECKING:
    import sqlite3

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
            "UPDATE jobs SET status = ?, priority = ?, due_at = ?, doc = ?, engine = ? "
            "WHERE seq = ?",
            (job.status, job.priority or 0, due_at, json.dumps(job.doc()), _engine(job), job.seq),
        )

    def update_job(self, job: ServiceJob) -> None:
        """Store the job's record, keeping when its status next changes by itself."""
        self.db.execute(
            "UPDATE jobs SET status = ?, priority = ?, doc = ?, engine = ? WHERE seq = ?",
            (job.status, job.priority or 0, json.dumps(job.doc()), _engine(job), job.seq),
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

    def queued_and_active(self, queue_ref: int) -> list[tuple[str, list[Any]]]:
        """A queue's RUNNABLE, SCHEDULED, STARTING and RUNNING jobs, oldest first, as what the
        engine needs of each (``jobs.engine_fields``): its id and those fields."""
        live = (JobStatus.RUNNABLE, *HOLDING)
        marks = ", ".join("?" * len(live))
        rows = self.db.execute(
            f"SELECT job_id, engine, seq FROM jobs INDEXED BY jobs_by_queue "
            f"WHERE queue_ref = ? AND status IN ({marks})",
            (queue_ref, *live),
        ).fetchall()
        rows.sort(key=_last)
        out = []
        for job_id, fields, _ in rows:
            if fields is None:  # stored by schema 1
                job = self.job(job_id)
                fields = _engine(job) if job is not None else None
            if fields is not None:
                out.append((job_id, json.loads(fields)))
        return out

    def jobs_with_reasons(self, queue_ref: int) -> list[ServiceJob]:
        """A queue's RUNNABLE jobs that have a statusReason (a queue's time limits apply)."""
        rows = self.db.execute(
            "SELECT doc, seq FROM jobs WHERE queue_ref = ? AND status = ? "
            "AND json_extract(doc, '$.status_reason') IS NOT NULL ORDER BY seq",
            (queue_ref, JobStatus.RUNNABLE),
        )
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in rows]

    def queues_with_work(self) -> list[int]:
        """Queues that have unfinished jobs."""
        marks = ", ".join("?" * len(FINAL))
        rows = self.db.execute(
            f"SELECT DISTINCT queue_ref FROM jobs WHERE status NOT IN ({marks})", FINAL
        )
        return [r[0] for r in rows]


def _last(row: tuple[Any, ...]) -> int:
    return int(row[-1])


def _engine(job: ServiceJob) -> str | None:
    return None if job.status in FINAL else json.dumps(jobs.engine_fields(job))


def _settling_since(record: Record) -> float | None:
    if isinstance(record, Settling) and record.status in SETTLING:
        return record.status_since
    return None
