"""The attempt ledger: one row per attempt of a service job, as CSV or JSON Lines.

Columns, in this order: ``job_id, attempt, name, queue, share, team, instance_type, count,
priority, submitted_at, started_at, stopped_at, outcome``. Times are ISO 8601 UTC
(``2026-12-01T09:00:00Z``, fractions of a second where there are any); ``started_at`` and
``stopped_at`` are empty (CSV) or null (JSON Lines) where the attempt has none. ``share`` and
``team`` may be empty too. Rows are keyed by ``(job_id, attempt)``: ``merge`` replaces a row by
a newer reading of the same key, which is how ``history --append`` stays idempotent.

The format is chosen by the file's suffix: ``.jsonl`` is JSON Lines, anything else CSV.
"""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from quotactl.core.collector import collector_paused
from quotactl.core.files import MAX_TRACE_BYTES, check_readable, check_size, replacing
from quotactl.core.states import AttemptOutcome
from quotactl.errors import FileIOError, LedgerError

__all__ = ["Attempt", "AttemptOutcome", "read_ledger", "write_ledger"]

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path
    from typing import TextIO


class Attempt(NamedTuple):
    """One row of the ledger: one attempt of one service job.

    A named tuple, not a frozen dataclass: a ledger of a year holds millions of rows, and a
    tuple is built from its fields in one step (``_new``) where a frozen dataclass sets
    each of its 13 fields through ``object.__setattr__``."""

    job_id: str
    attempt: int
    name: str
    queue: str
    share: str | None
    team: str | None
    instance_type: str | None
    count: int  # type: ignore[assignment]  # the field hides tuple.count, used nowhere
    priority: int
    submitted_at: datetime
    started_at: datetime | None
    stopped_at: datetime | None
    outcome: AttemptOutcome

    @property
    def key(self) -> tuple[str, int]:
        return (self.job_id, self.attempt)


COLUMNS = (
    "job_id",
    "attempt",
    "name",
    "queue",
    "share",
    "team",
    "instance_type",
    "count",
    "priority",
    "submitted_at",
    "started_at",
    "stopped_at",
    "outcome",
)
MAX_LEDGER_BYTES = MAX_TRACE_BYTES
"""A ledger of a year of a busy account is a few hundred MiB; the trace limit is generous."""
_HINT = "a ledger is what `quotactl history --out FILE` writes"


def iso(moment: datetime) -> str:
    """ISO 8601 UTC with a ``Z``; fractions of a second only where there are any."""
    moment = moment.astimezone(UTC)
    if not moment.microsecond:
        spec = "seconds"
    elif moment.microsecond % 1000:
        spec = "microseconds"
    else:
        spec = "milliseconds"
    return moment.isoformat(timespec=spec).removesuffix("+00:00") + "Z"


def parse_time(text: str) -> datetime:
    """An ISO 8601 time; one without a zone is UTC. Raises ``ValueError``."""
    moment = datetime.fromisoformat(text.strip())
    if moment.tzinfo is UTC:
        return moment
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def from_epoch(seconds: float) -> datetime:
    """Epoch seconds (AWS's times, the emulator's clock) as an aware UTC time, to the ms."""
    return datetime.fromtimestamp(round(seconds, 3), UTC)


def as_fields(row: Attempt) -> dict[str, Any]:
    """A row as JSON values, in column order (times as ISO 8601, absent as None)."""
    return {
        "job_id": row.job_id,
        "attempt": row.attempt,
        "name": row.name,
        "queue": row.queue,
        "share": row.share,
        "team": row.team,
        "instance_type": row.instance_type,
        "count": row.count,
        "priority": row.priority,
        "submitted_at": iso(row.submitted_at),
        "started_at": iso(row.started_at) if row.started_at else None,
        "stopped_at": iso(row.stopped_at) if row.stopped_at else None,
        "outcome": str(row.outcome),
    }


def read_ledger(path: Path) -> list[Attempt]:
    """Every row of the ledger at ``path`` (CSV, or JSON Lines for ``.jsonl``), in file order."""
    check_readable(path, "ledger", hint=_HINT)
    check_size(path, MAX_LEDGER_BYTES, "ledger")
    try:
        # a few objects a row, all kept and none in a cycle: the collector would only rescan them
        with collector_paused(), path.open(encoding="utf-8-sig", newline="") as stream:
            if _is_jsonl(path):
                return list(_read_jsonl(stream, str(path)))
            return list(_read_csv(stream, str(path)))
    except OSError as exc:
        raise FileIOError(f"cannot read ledger {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise LedgerError(f"{path}: the ledger is not UTF-8 text", hint=_HINT) from None


def write_ledger(path: Path, attempts: Iterable[Attempt]) -> None:
    """Write ``attempts`` to ``path`` in its suffix's format; the file appears whole or not at
    all (a temporary file beside it, renamed over it)."""
    with replacing(path, "ledger") as out:
        write_rows(out, attempts, jsonl=_is_jsonl(path))


def write_rows(out: TextIO, attempts: Iterable[Attempt], *, jsonl: bool) -> None:
    """The ledger's text on ``out``: a CSV header and rows, or one JSON object a line."""
    if jsonl:
        for row in attempts:
            out.write(json.dumps(as_fields(row), separators=(",", ":")) + "\n")
        return
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in attempts:
        writer.writerow("" if v is None else v for v in as_fields(row).values())


def merge(old: Iterable[Attempt], new: Iterable[Attempt]) -> list[Attempt]:
    """``old`` with every row of ``new`` added or, for a key already there, replacing it; in
    ledger order (by submission, job, attempt), so the result does not depend on how the rows
    were read."""
    rows = {row.key: row for row in old}
    rows.update((row.key, row) for row in new)
    return sorted(rows.values(), key=ledger_order)


def ledger_order(row: Attempt) -> tuple[datetime, str, int]:
    return (row.submitted_at, row.job_id, row.attempt)


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() == ".jsonl"


def _read_csv(stream: TextIO, source: str) -> Iterator[Attempt]:
    reader = csv.reader(stream)
    header = next(reader, None)
    if header is None:
        return
    header = [h.strip() for h in header]
    if tuple(header) != COLUMNS:
        raise LedgerError(
            f"{source}:1: the header must be {','.join(COLUMNS)}, got {','.join(header)}",
            hint=_HINT,
        )
    for line, values in enumerate(reader, start=2):
        if not values:
            continue
        if len(values) != len(COLUMNS):
            raise LedgerError(
                f"{source}:{line}: {len(values)} fields, the header has {len(COLUMNS)}",
                hint=_HINT,
            )
        yield _csv_row(values, source, line)


def _read_jsonl(stream: TextIO, source: str) -> Iterator[Attempt]:
    for line, text in enumerate(stream, start=1):
        if not text.strip():
            continue
        where = f"{source}:{line}"
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LedgerError(f"{where}: not JSON: {exc.msg}", hint=_HINT) from None
        if not isinstance(item, dict):
            raise LedgerError(f"{where}: each line must be a JSON object", hint=_HINT)
        extra = sorted(set(item) - set(COLUMNS))
        missing = [c for c in COLUMNS if c not in item]
        if extra or missing:
            what = f"unknown column {extra[0]!r}" if extra else f"missing column {missing[0]!r}"
            raise LedgerError(f"{where}: {what}", hint=_HINT)
        yield _row({k: "" if v is None else v for k, v in item.items()}, source, line)


_OUTCOMES = {str(o): o for o in AttemptOutcome}


def _csv_row(values: list[str], source: str, line: int) -> Attempt:
    """One CSV row by position (the header was checked): the common case directly (times as
    the ledger writes them, in UTC), anything unusual through ``_checked_row``."""
    job_id, attempt, name, queue, share, team, itype, count, priority, sub, start, stop, end = (
        values
    )
    try:
        submitted = _from_iso(sub)
        started = _from_iso(start) if start else None
        stopped = _from_iso(stop) if stop else None
        if (
            submitted.tzinfo is not UTC
            or (started is not None and started.tzinfo is not UTC)
            or (stopped is not None and stopped.tzinfo is not UTC)
        ):
            raise ValueError(sub)  # another zone, or none: parse_time's way
        row = _new(
            Attempt,
            (
                job_id,
                int(attempt),
                name,
                queue,
                share or None,
                team or None,
                itype or None,
                int(count),
                int(priority),
                submitted,
                started,
                stopped,
                _OUTCOMES[end],
            ),
        )
    except (ValueError, KeyError):
        return _checked_row(dict(zip(COLUMNS, values, strict=True)), f"{source}:{line}")
    if row.attempt < 1 or row.count < 0 or row.priority < 0 or not job_id:
        return _checked_row(dict(zip(COLUMNS, values, strict=True)), f"{source}:{line}")
    return row


_from_iso = datetime.fromisoformat
_new = tuple.__new__
"""An ``Attempt`` from its fields in order, without the keyword-argument ``__new__``."""


def _row(values: dict[str, Any], source: str, line: int) -> Attempt:
    """One row from its fields (JSON values, with None as ""): the common case
    directly, anything unusual through ``_checked_row``, which names what is wrong."""
    try:
        attempt, count, priority = (
            int(values["attempt"]),
            int(values["count"]),
            int(values["priority"]),
        )
        outcome = _OUTCOMES[values["outcome"]]
        job_id = values["job_id"]
        started, stopped = values["started_at"], values["stopped_at"]
        row = Attempt(
            job_id=job_id,
            attempt=attempt,
            name=str(values["name"]),
            queue=str(values["queue"]),
            share=str(values["share"]) or None,
            team=str(values["team"]) or None,
            instance_type=str(values["instance_type"]) or None,
            count=count,
            priority=priority,
            submitted_at=parse_time(values["submitted_at"]),
            started_at=parse_time(started) if started else None,
            stopped_at=parse_time(stopped) if stopped else None,
            outcome=outcome,
        )
    except (ValueError, TypeError, KeyError, AttributeError):
        return _checked_row(values, f"{source}:{line}")
    numbers = (values["attempt"], values["count"], values["priority"])
    if type(numbers[0]) is not str and any(isinstance(n, float | bool) for n in numbers):
        return _checked_row(values, f"{source}:{line}")  # JSON Lines: 1.5 is no attempt
    if attempt < 1 or count < 0 or priority < 0 or not isinstance(job_id, str) or not job_id:
        return _checked_row(values, f"{source}:{line}")
    return row


def _checked_row(values: dict[str, Any], where: str) -> Attempt:
    """One row, checked field by field: the first field that is wrong is named."""
    column = "job_id"
    try:
        column = "attempt"
        attempt = _int(values["attempt"], minimum=1)
        column = "count"
        count = _int(values["count"], minimum=0)
        column = "priority"
        priority = _int(values["priority"], minimum=0)
        column = "submitted_at"
        submitted = parse_time(str(values["submitted_at"]))
        column = "started_at"
        started = _time(values["started_at"])
        column = "stopped_at"
        stopped = _time(values["stopped_at"])
        column = "outcome"
        outcome = AttemptOutcome(str(values["outcome"]).strip())
    except (ValueError, TypeError):
        shown = values.get(column)
        raise LedgerError(f"{where}: {column}: invalid value {shown!r}", hint=_HINT) from None
    job_id = str(values["job_id"]).strip()
    if not job_id:
        raise LedgerError(f"{where}: job_id is empty", hint=_HINT)
    return Attempt(
        job_id=job_id,
        attempt=attempt,
        name=str(values["name"]),
        queue=str(values["queue"]),
        share=str(values["share"]) or None,
        team=str(values["team"]) or None,
        instance_type=str(values["instance_type"]) or None,
        count=count,
        priority=priority,
        submitted_at=submitted,
        started_at=started,
        stopped_at=stopped,
        outcome=outcome,
    )


def _int(value: Any, *, minimum: int) -> int:
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(value)
    number = int(value)
    if number < minimum:
        raise ValueError(value)
    return number


def _time(value: Any) -> datetime | None:
    text = str(value).strip()
    return parse_time(text) if text else None
