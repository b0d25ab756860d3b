"""Job traces: one job per row, CSV with a header or JSON Lines, read and written as streams.

Columns (docs/review.md): ``submit_time`` (seconds from the start of the trace), ``share``
(``queue/share``, or ``share`` when the configuration has one queue), ``instance_type``,
``count`` (instances, >= 1), ``duration`` (seconds of running, >= 0), ``priority`` (optional,
0-9999, default 0) and ``name`` (optional). Unknown columns are errors, as in the
configuration: a misspelt ``priorty`` must not be silently dropped. A replay reads rows in
submission order; a trace that is not in that order is sorted first (``ordering``).

Parsing takes lines (any iterable of str), so the caller decides where they come from; errors
are ``TraceError`` with ``FILE:LINE`` and the stable code ``trace-invalid``.
"""

from __future__ import annotations

import csv
import json
from typing import TYPE_CHECKING, TextIO

from quotactl.errors import TraceError, TraceUnsorted

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

TraceRow = tuple[float, str, str, int, float, int, str, int]
"""(submit_time, share, instance_type, count, duration, priority, name, line): a tuple, not
an object, because a trace has millions of them."""

REQUIRED = ("submit_time", "share", "instance_type", "count", "duration")
OPTIONAL = ("priority", "name")
COLUMNS = REQUIRED + OPTIONAL
MAX_PRIORITY = 9999
MAX_SECONDS = 10 * 366 * 86400
"""The longest duration a trace may hold: ten years. A longer value is a mistake (AWS stops a
training job after 28 days at most), and would overflow every table."""
MAX_SUBMIT_SECONDS = 100 * 366 * 86400
"""The latest submit_time a trace may hold: a century. A trace of a million jobs of a small
platform at its own load spans a decade (``trace generate --jobs 1000000`` on the demo config:
11 years), and a replay of it must be accepted; times stay exact in a float far beyond."""


def read_trace(lines: Iterable[str], source: str, *, ordered: bool = True) -> Iterator[TraceRow]:
    """Parse a trace lazily; the format is JSON Lines if the first non-blank line is ``{``.

    With ``ordered`` (a replay), a row earlier than the one before it raises ``TraceUnsorted``;
    without, rows come in file order, whatever their times (to sort the trace).
    """
    it = iter(lines)
    first = ""
    skipped = 0
    for first in it:
        skipped += 1
        if skipped == 1:  # a byte-order mark, as Excel and Notepad write it, is no column
            first = first.removeprefix("\ufeff")
        if first.strip():
            break
    else:
        raise TraceError(f"{source}:1: the trace is empty", hint=_HINT)
    if first.lstrip().startswith("{"):
        return _read_jsonl(first, it, source, skipped, ordered)
    return _read_csv(first, it, source, skipped, ordered)


def _read_csv(
    header_line: str, rest: Iterator[str], source: str, offset: int, ordered: bool
) -> Iterator[TraceRow]:
    header = [h.strip() for h in next(csv.reader([header_line]))]
    _check_columns(header, source, offset)
    where = {name: header.index(name) for name in header}
    its, ish, ity, ico, idu = (where[c] for c in REQUIRED)
    ipr = where.get("priority", -1)
    ina = where.get("name", -1)
    width = len(header)
    previous = 0.0
    line = offset
    found = False
    # One str object per distinct share and instance type: a batch of rows sent from the
    # worker pickles each once, and lookups by them reuse its cached hash.
    same: dict[str, str] = {}
    for text in rest:
        line += 1
        # One job per line: split on commas, and leave quoted fields to the csv module.
        row = next(csv.reader([text])) if '"' in text else text.rstrip("\r\n").split(",")
        if len(row) != width:
            if not text.strip():
                continue  # a blank line
            raise TraceError(
                f"{source}:{line}: expected {width} fields ({', '.join(header)}), got {len(row)}",
                hint=_HINT,
            )
        try:
            at = float(row[its])
            count = int(row[ico])
            duration = float(row[idu])
            priority = int(row[ipr]) if ipr >= 0 and row[ipr] else 0
        except ValueError:
            raise _field_error(row, header, source, line) from None
        share = same.setdefault(row[ish], row[ish])
        instance_type = same.setdefault(row[ity], row[ity])
        if not (
            previous <= at <= MAX_SUBMIT_SECONDS
            and count > 0
            and 0.0 <= duration <= MAX_SECONDS
            and 0 <= priority <= MAX_PRIORITY
            and share
            and instance_type
        ):
            raise _row_error(
                at, count, duration, priority, share, instance_type, previous, source, line
            )
        if ordered:
            previous = at
        name = row[ina] if ina >= 0 else ""
        yield (at, share, instance_type, count, duration, priority, name, line)
        found = True
    if not found:
        raise TraceError(f"{source}:{line}: the trace has a header but no jobs", hint=_HINT)


def _read_jsonl(
    first: str, rest: Iterator[str], source: str, offset: int, ordered: bool
) -> Iterator[TraceRow]:
    previous = 0.0
    line = offset
    text = first
    same: dict[str, str] = {}  # as in ``_read_csv``
    while True:
        if text.strip():
            try:
                record = json.loads(text)
            except ValueError as exc:
                raise TraceError(f"{source}:{line}: not a JSON object: {exc}", hint=_HINT) from None
            if not isinstance(record, dict):
                raise TraceError(f"{source}:{line}: not a JSON object", hint=_HINT)
            _check_columns(list(record), source, line)
            at = _number(record, "submit_time", source, line)
            count = _integer(record, "count", source, line)
            duration = _number(record, "duration", source, line)
            priority = _integer(record, "priority", source, line) if "priority" in record else 0
            share = _text(record, "share", source, line)
            share = same.setdefault(share, share)
            instance_type = _text(record, "instance_type", source, line)
            instance_type = same.setdefault(instance_type, instance_type)
            if not (
                previous <= at <= MAX_SUBMIT_SECONDS
                and count > 0
                and 0.0 <= duration <= MAX_SECONDS
                and 0 <= priority <= MAX_PRIORITY
            ):
                raise _row_error(
                    at, count, duration, priority, share, instance_type, previous, source, line
                )
            if ordered:
                previous = at
            name = _text(record, "name", source, line) if "name" in record else ""
            yield (at, share, instance_type, count, duration, priority, name, line)
        following = next(rest, None)
        if following is None:
            return
        text = following
        line += 1


def write_trace(rows: Iterable[TraceRow], out: TextIO) -> int:
    """Write rows as CSV with a header; returns how many were written."""
    out.write(",".join(COLUMNS) + "\n")
    written = 0
    for at, share, instance_type, count, duration, priority, name, _ in rows:
        out.write(f"{at:.1f},{share},{instance_type},{count},{duration:.0f},{priority},{name}\n")
        written += 1
    return written


_HINT = (
    "a trace is CSV with the header submit_time,share,instance_type,count,duration"
    "[,priority][,name], or JSON Lines with those keys"
)


def _check_columns(names: list[str], source: str, line: int) -> None:
    unknown = [n for n in names if n not in COLUMNS]
    if unknown:
        raise TraceError(
            f"{source}:{line}: unknown column {unknown[0]!r}",
            hint=f"columns are {', '.join(COLUMNS)} (priority and name optional)",
        )
    missing = [n for n in REQUIRED if n not in names]
    if missing:
        raise TraceError(f"{source}:{line}: missing column {missing[0]!r}", hint=_HINT)
    if len(set(names)) != len(names):
        raise TraceError(f"{source}:{line}: a column appears twice", hint=_HINT)


def _field_error(row: list[str], header: list[str], source: str, line: int) -> TraceError:
    for name, kind in (("submit_time", float), ("count", int), ("duration", float)):
        value = row[header.index(name)]
        try:
            kind(value)
        except ValueError:
            return TraceError(f"{source}:{line}: {name} {value!r} is not a {_KIND[kind]}")
    value = row[header.index("priority")]
    return TraceError(f"{source}:{line}: priority {value!r} is not a whole number")


def _row_error(
    at: float,
    count: int,
    duration: float,
    priority: int,
    share: str,
    instance_type: str,
    previous: float,
    source: str,
    line: int,
) -> TraceError:
    """The first thing wrong with a parsed row (in column order)."""
    if not 0.0 <= at <= MAX_SUBMIT_SECONDS:
        return TraceError(
            f"{source}:{line}: submit_time {at:g} must be from 0 to {MAX_SUBMIT_SECONDS} seconds"
            " (a century)"
        )
    if at < previous:
        return TraceUnsorted(
            f"{source}:{line}: submit_time {at:g} is earlier than the row before ({previous:g})",
            hint="rows must be in submission order (sort the trace by submit_time)",
        )
    if not share:
        return TraceError(f"{source}:{line}: share is empty")
    if not instance_type:
        return TraceError(f"{source}:{line}: instance_type is empty")
    if count <= 0:
        return TraceError(f"{source}:{line}: count {count} must be at least 1")
    if not 0.0 <= duration <= MAX_SECONDS:
        return TraceError(
            f"{source}:{line}: duration {duration:g} must be from 0 to {MAX_SECONDS} seconds"
            " (ten years)"
        )
    return TraceError(f"{source}:{line}: priority {priority} is outside 0-{MAX_PRIORITY}")


_KIND: dict[type, str] = {float: "number", int: "whole number"}


def _number(record: dict[str, object], key: str, source: str, line: int) -> float:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceError(f"{source}:{line}: {key} {value!r} is not a number")
    return float(value)


def _integer(record: dict[str, object], key: str, source: str, line: int) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TraceError(f"{source}:{line}: {key} {value!r} is not a whole number")
    return value


def _text(record: dict[str, object], key: str, source: str, line: int) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise TraceError(f"{source}:{line}: {key} {value!r} is not a non-empty string")
    return value
