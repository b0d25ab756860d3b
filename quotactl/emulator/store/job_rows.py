"""The service-job half of ``Tx``: job rows, found by id, token, queue order or due time.

Beside its JSON document each row keeps the indexed columns that make a request cost what it
touches: ``status``, ``priority``, ``due_at`` (when the job next changes by itself) and
``engine`` (what the scheduling engine needs of an unfinished job, ``engine_fields``,
so an engine is rebuilt without reading documents).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from quotactl.core.states import FINAL, HOLDING, JobStatus
from quotactl.emulator.account.engine_fields import engine_fields
from quotactl.emulator.account.service_job import ServiceJob

if TYPE_CHECKING:
    import sqlite3


class JobRows:
    """Reads and writes of service jobs inside one transaction (``db``)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def job(self, job_id: str) -> ServiceJob | None:
        row = self.db.execute("SELECT doc, seq FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None else ServiceJob.from_doc(json.loads(row[0]), row[1])

    def job_by_token(self, token: str) -> ServiceJob | None:
        row = self.db.execute(
            "SELECT doc, seq FROM jobs WHERE client_token = ?", (token,)
        ).fetchone()
        return None if row is None else ServiceJob.from_doc(json.loads(row[0]), row[1])

    def latest_created_at(self) -> float | None:
        """The ``createdAt`` (emulated seconds) of the job submitted last, if any."""
        row = self.db.execute(
            "SELECT json_extract(doc, '$.created_at') FROM jobs ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

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
            "UPDATE jobs SET status = ?, priority = ?, due_at = ?, doc = ?, engine = ?, "
            "summary = ? WHERE seq = ?",
            (job.status, job.priority or 0, due_at, *_texts(job), job.seq),
        )

    def update_job(self, job: ServiceJob) -> None:
        """Store the job's record, keeping when its status next changes by itself."""
        self.db.execute(
            "UPDATE jobs SET status = ?, priority = ?, doc = ?, engine = ?, summary = ? "
            "WHERE seq = ?",
            (job.status, job.priority or 0, *_texts(job), job.seq),
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
        sql, args = _select(
            "doc, seq", queue_ref, statuses, share, before, newest_first, in_queue_order, limit
        )
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in self.db.execute(sql, args)]

    def summaries(
        self,
        *,
        queue_ref: int | None,
        statuses: tuple[str, ...] | None,
        share: str | None,
        before: int | None,
        limit: int,
    ) -> list[tuple[str, int]]:
        """The ListServiceJobs items of ``jobs(...)``'s rows as JSON texts, newest first, with
        their seq: the stored summaries, so a page costs what its items do."""
        sql, args = _select(
            "summary, doc, seq", queue_ref, statuses, share, before, True, False, limit
        )
        return [
            (summary if summary is not None else _summary(doc, seq), seq)
            for summary, doc, seq in self.db.execute(sql, args)
        ]

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
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in sorted(rows, key=by_seq)]

    def first_job_event(self) -> float | None:
        sql = "SELECT min(due_at) FROM jobs WHERE due_at IS NOT NULL"
        return self.db.execute(sql).fetchone()[0]  # type: ignore[no-any-return]

    def left_since(self, queue_ref: int, since: float) -> list[ServiceJob]:
        """A queue's jobs that are not RUNNABLE and changed status at or after ``since``
        (a superset of those that left the RUNNABLE queue since then)."""
        rows = self.db.execute(
            "SELECT doc, seq FROM jobs WHERE queue_ref = ? AND status NOT IN (?, ?) "
            "AND json_extract(doc, '$.status_since') >= ?",
            (queue_ref, JobStatus.RUNNABLE, JobStatus.SUBMITTED, since),
        )
        return [ServiceJob.from_doc(json.loads(d), s) for d, s in rows]

    def usage_changed_at(self, queue_ref: int) -> float | None:
        """When a job of the queue last took or gave back capacity (SCHEDULED, or stopped)."""
        row = self.db.execute(
            "SELECT max(max(coalesce(json_extract(doc, '$.scheduled_at'), 0)), "
            "max(coalesce(json_extract(doc, '$.recent_preempted[0].stopped_at'), 0)), "
            "max(CASE WHEN json_extract(doc, '$.scheduled_at') IS NOT NULL "
            "THEN coalesce(json_extract(doc, '$.stopped_at'), 0) ELSE 0 END)) "
            "FROM jobs WHERE queue_ref = ?",
            (queue_ref,),
        ).fetchone()
        return float(row[0]) if row and row[0] else None

    def queued_and_active(self, queue_ref: int) -> list[tuple[str, dict[str, Any]]]:
        """A queue's RUNNABLE, SCHEDULED, STARTING and RUNNING jobs, oldest first, as what the
        engine needs of each (``engine_fields``): its id and those fields."""
        live = (JobStatus.RUNNABLE, *HOLDING)
        marks = ", ".join("?" * len(live))
        rows = self.db.execute(
            f"SELECT job_id, engine, seq FROM jobs INDEXED BY jobs_by_queue "
            f"WHERE queue_ref = ? AND status IN ({marks})",
            (queue_ref, *live),
        ).fetchall()
        rows.sort(key=by_seq)
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


def by_seq(row: tuple[Any, ...]) -> int:
    """Sort key of rows whose last column is ``seq`` (creation order)."""
    return int(row[-1])


def _select(
    columns: str,
    queue_ref: int | None,
    statuses: tuple[str, ...] | None,
    share: str | None,
    before: int | None,
    newest_first: bool,
    in_queue_order: bool,
    limit: int,
) -> tuple[str, list[Any]]:
    """The SELECT of ``columns`` behind ``JobRows.jobs`` and ``JobRows.summaries``."""
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
    sql = f"SELECT {columns} FROM jobs"
    if where:
        sql += " WHERE " + " AND ".join(where)
    if in_queue_order:
        sql += " ORDER BY priority DESC, seq ASC LIMIT ?"
    else:
        sql += f" ORDER BY seq {'DESC' if newest_first else 'ASC'} LIMIT ?"
    args.append(limit)
    return sql, args


def _texts(job: ServiceJob) -> tuple[str, str | None, str]:
    """The stored texts of a job: its document, its engine fields and its summary."""
    return json.dumps(job.doc()), _engine(job), json.dumps(job.summary())


def _summary(doc: str, seq: int) -> str:
    """The summary of a row stored before schema 3."""
    return json.dumps(ServiceJob.from_doc(json.loads(doc), seq).summary())


def _engine(job: ServiceJob) -> str | None:
    return None if job.status in FINAL else json.dumps(engine_fields(job))
