"""Readers of public cluster traces, each from its format's published documentation.

- ``swf``: the Standard Workload Format of the Parallel Workloads Archive: one job a line, 18
  whitespace-separated fields, ``;`` starts a header comment, -1 is unknown. Group: the user
  ID (field 12). Submit: field 2; start: submit + wait (field 3); end: start + run time
  (field 4); GPUs: the allocated processors (field 5, else the requested, field 8).
- ``philly``: Microsoft's Philly ``cluster_job_log``: a JSON list of jobs (or one per line),
  each with ``vc``, ``submitted_time`` and ``attempts`` of ``start_time``, ``end_time`` and
  ``detail[].gpus``. Group: ``vc``. Start: the first attempt's start; end: the last attempt's
  end; GPUs: those of the first attempt.
- ``helios``: SenseTime Helios ``cluster_log.csv`` (header row). Group: ``vc``; ``submit_time``,
  ``start_time``, ``end_time`` (``YYYY-MM-DD HH:MM:SS``); GPUs: ``gpu_num``.
- ``alibaba-pai``: Alibaba PAI 2020 ``pai_job_table.csv`` with ``pai_task_table.csv`` beside
  it (the FILE may be the directory holding both; the files have no header, as published).
  Group: the job's ``user``; submit: the job's ``start_time`` (its submission); start and end:
  the earliest task start and the latest task end; GPUs: the sum over its tasks of
  ``plan_gpu / 100 x inst_num``.
- ``alibaba-openb``: Alibaba's 2023 ``openb_pod_list_*.csv`` (header row). Group: ``qos``;
  submit: ``creation_time``; start: ``scheduled_time``; end: ``deletion_time``; GPUs:
  ``num_gpu`` (a GPU-sharing pod, ``gpu_milli`` below 1000, still takes a whole GPU).

Datetimes are read as given, without a zone: only their differences count.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from quotactl.core.simulate import io
from quotactl.core.simulate.public import Recorded
from quotactl.errors import TraceError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path


class TraceFormat(StrEnum):
    SWF = "swf"
    PHILLY = "philly"
    HELIOS = "helios"
    ALIBABA_PAI = "alibaba-pai"
    ALIBABA_OPENB = "alibaba-openb"


def records(kind: TraceFormat, path: Path) -> Iterator[Recorded]:
    """The jobs the trace at ``path`` records, in file order."""
    readers: dict[TraceFormat, Callable[[Path], Iterator[Recorded]]] = {
        TraceFormat.SWF: _swf,
        TraceFormat.PHILLY: _philly,
        TraceFormat.HELIOS: _helios,
        TraceFormat.ALIBABA_PAI: _pai,
        TraceFormat.ALIBABA_OPENB: _openb,
    }
    return readers[kind](path)


def _swf(path: Path) -> Iterator[Recorded]:
    with io.read_text(path) as lines:
        for number, text in enumerate(lines, start=1):
            text = text.strip()
            if not text or text.startswith(";"):
                continue
            fields = text.split()
            if len(fields) < 18:
                raise TraceError(f"{path}:{number}: expected 18 fields, got {len(fields)}")
            try:
                job, submit, wait, run, allocated = (float(f) for f in fields[:5])
                requested, user = float(fields[7]), fields[11]
            except ValueError:
                raise TraceError(f"{path}:{number}: the fields must be numbers") from None
            started = submit + wait if wait >= 0 else None
            ended = started + run if started is not None and run >= 0 else None
            gpus = allocated if allocated > 0 else requested
            yield Recorded(user, submit, started, ended, gpus, f"swf-{job:.0f}", number)


def _philly(path: Path) -> Iterator[Recorded]:
    with io.read_text(path) as stream:
        text = stream.read()
    try:
        jobs = json.loads(text) if text.lstrip().startswith("[") else _json_lines(text)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    for number, job in enumerate(jobs, start=1):
        if not isinstance(job, dict) or "vc" not in job or "submitted_time" not in job:
            raise TraceError(f"{path}: job {number} has no vc or submitted_time")
        attempts = [a for a in job.get("attempts") or [] if isinstance(a, dict)]
        first = next((a for a in attempts if _time(a.get("start_time"))), None)
        last = attempts[-1] if attempts else None
        gpus = sum(len(d.get("gpus") or []) for d in (first or {}).get("detail") or [])
        yield Recorded(
            str(job["vc"]),
            _time(job["submitted_time"]) or 0.0,
            _time(first.get("start_time")) if first else None,
            _time(last.get("end_time")) if last else None,
            float(gpus),
            str(job.get("jobid", f"philly-{number}")),
            number,
        )


def _json_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _helios(path: Path) -> Iterator[Recorded]:
    for number, row in _csv_rows(path, ("vc", "gpu_num", "submit_time", "start_time")):
        yield Recorded(
            row["vc"],
            _time(row["submit_time"]) or 0.0,
            _time(row["start_time"]),
            _time(row.get("end_time")),
            _number(row["gpu_num"], path, number),
            row.get("job_id") or f"helios-{number}",
            number,
        )


def _openb(path: Path) -> Iterator[Recorded]:
    needed = ("qos", "num_gpu", "creation_time", "scheduled_time", "deletion_time")
    for number, row in _csv_rows(path, needed):
        yield Recorded(
            row["qos"],
            _number(row["creation_time"], path, number),
            _optional(row["scheduled_time"], path, number),
            _optional(row["deletion_time"], path, number),
            _number(row["num_gpu"] or "0", path, number),
            row.get("name") or f"openb-{number}",
            number,
        )


PAI_JOB_COLUMNS = ("job_name", "inst_id", "user", "status", "start_time", "end_time")
PAI_TASK_COLUMNS = (
    "job_name", "task_name", "inst_num", "status", "start_time", "end_time",
    "plan_cpu", "plan_mem", "plan_gpu", "gpu_type",
)  # fmt: skip


def _pai(path: Path) -> Iterator[Recorded]:
    jobs = path if io.is_file(path) else path / "pai_job_table.csv"
    tasks = jobs.with_name("pai_task_table.csv")
    if not io.is_file(tasks):
        raise TraceError(
            f"{tasks}: no such file",
            hint="alibaba-pai reads pai_job_table.csv and pai_task_table.csv from one directory",
        )
    runs: dict[str, list[float]] = defaultdict(lambda: [0.0, float("inf"), float("-inf")])
    for number, row in _headless(tasks, PAI_TASK_COLUMNS):
        run = runs[row["job_name"]]
        gpu = _optional(row["plan_gpu"], tasks, number) or 0.0
        run[0] += gpu / 100 * (_optional(row["inst_num"], tasks, number) or 1.0)
        began = _optional(row["start_time"], tasks, number)
        ended = _optional(row["end_time"], tasks, number)
        if began is not None:
            run[1] = min(run[1], began)
        if ended is not None:
            run[2] = max(run[2], ended)
    for number, row in _headless(jobs, PAI_JOB_COLUMNS):
        gpus, first, last = runs.get(row["job_name"], (0.0, float("inf"), float("-inf")))
        yield Recorded(
            row["user"],
            _number(row["start_time"], jobs, number),
            first if first != float("inf") else None,
            last if last != float("-inf") else None,
            gpus,
            row["job_name"],
            number,
        )


def _csv_rows(path: Path, needed: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    with io.read_text(path) as lines:
        reader = csv.DictReader(lines)
        missing = [c for c in needed if c not in (reader.fieldnames or [])]
        if missing:
            raise TraceError(f"{path}:1: the header lacks {', '.join(missing)}")
        for row in reader:
            yield reader.line_num, row


def _headless(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a CSV published without a header (a header row, if present, is skipped)."""
    with io.read_text(path) as lines:
        for number, fields in enumerate(csv.reader(lines), start=1):
            if not fields or (number == 1 and fields[0] == columns[0]):
                continue
            if len(fields) != len(columns):
                raise TraceError(
                    f"{path}:{number}: expected {len(columns)} fields ({', '.join(columns)})"
                )
            yield number, dict(zip(columns, fields, strict=True))


def _time(value: object) -> float | None:
    """A ``YYYY-MM-DD HH:MM:SS`` datetime (or a number of seconds) as seconds; None if unset."""
    if value is None or value in ("", "None", "NaN", "nan"):
        return None
    text = str(value)
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text[:19]).replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise TraceError(f"{text!r} is no time (YYYY-MM-DD HH:MM:SS)") from None


def _number(text: str, path: Path, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise TraceError(f"{path}:{line}: {text!r} is not a number") from None


def _optional(text: str, path: Path, line: int) -> float | None:
    return None if text in ("", "nan", "NaN", "None") else _number(text, path, line)
