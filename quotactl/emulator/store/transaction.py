"""One request's view of the emulated account: typed reads and writes in one transaction.

``Tx`` is what handlers and the state machine see of the state file (``store.py`` opens it
and runs the transactions): the account row, resources and tags as records (``models.py``),
and service jobs (``job_rows.py``). A resource row's ``due_at`` is when its
CREATING/UPDATING/DELETING step began, so due steps are one index range, never a scan.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar

from quotactl.core.states import CHANGING
from quotactl.emulator.account.models import (
    JobQueue,
    QuotaShare,
    Record,
    SchedulingPolicy,
    ServiceEnvironment,
    Settling,
)
from quotactl.emulator.store.job_rows import JobRows, by_seq

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


class Tx(JobRows):
    """One request's view of the account: typed reads and writes inside one transaction."""

    # -- account row ---------------------------------------------------------------------
    def account_row(self) -> tuple[str, str, Clock, float | None]:
        row = self.db.execute(
            "SELECT account_id, region, clock, anchor, speed, next_due FROM account"
        ).fetchone()
        return row[0], row[1], Clock(row[2], row[3], row[4]), row[5]

    def variant(self) -> tuple[str, int]:
        """The emulator's variant and, for ``strict``, how many listing reads a created
        resource or submitted job stays out of listings."""
        row = self.db.execute("SELECT variant, list_lag FROM account").fetchone()
        return str(row[0]), int(row[1])

    def set_variant(self, variant: str, list_lag: int) -> None:
        self.db.execute("UPDATE account SET variant = ?, list_lag = ?", (variant, list_lag))

    def lagging(self) -> dict[str, Any]:
        """ARN -> [how many more listing reads leave it out, the emulated time it lags
        until] (strict, or the list_lag fault)."""
        found: dict[str, Any] = json.loads(
            self.db.execute("SELECT lagging FROM account").fetchone()[0]
        )
        return found

    def set_lagging(self, lagging: dict[str, Any]) -> None:
        self.db.execute("UPDATE account SET lagging = ?", (json.dumps(lagging),))

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

    def has_arn(self, arn: str) -> bool:
        """Whether a resource has this ARN (without reading its document)."""
        row = self.db.execute("SELECT 1 FROM resources WHERE arn = ?", (arn,)).fetchone()
        return row is not None

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
        return [KINDS[k].from_doc(json.loads(d), s) for k, d, s in sorted(rows, key=by_seq)]

    def first_settling(self) -> float | None:
        """When the oldest pending CREATING/UPDATING/DELETING step began."""
        sql = "SELECT min(due_at) FROM resources WHERE due_at IS NOT NULL"
        return self.db.execute(sql).fetchone()[0]  # type: ignore[no-any-return]

    # -- tags ----------------------------------------------------------------------------
    def resource_tags(self, arn: str) -> dict[str, str] | None:
        """The tags of the resource with this ARN, None when there is none (one statement:
        ListTagsForResource is most of the calls a plan makes)."""
        rows = self.db.execute(
            "SELECT t.key, t.value FROM resources r LEFT JOIN tags t ON t.arn = r.arn "
            "WHERE r.arn = ? ORDER BY t.key",
            (arn,),
        ).fetchall()
        return {k: v for k, v in rows if k is not None} if rows else None

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


def _settling_since(record: Record) -> float | None:
    if isinstance(record, Settling) and record.status in CHANGING:
        return record.status_since
    return None
