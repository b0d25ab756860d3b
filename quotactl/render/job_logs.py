"""``job logs``: each attempt's training-job log lines, stamped, under a header when several."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import TextIO


class LogLine(Protocol):
    @property
    def timestamp(self) -> int: ...
    @property
    def stream(self) -> str: ...
    @property
    def message(self) -> str: ...


class AttemptLog(Protocol):
    """One attempt's lines (``quotactl.api.jobs.AttemptLog``)."""

    @property
    def training_job(self) -> str: ...
    @property
    def attempt(self) -> int: ...
    @property
    def lines(self) -> Iterator[LogLine]: ...


def print_logs(out: TextIO, attempts: Sequence[AttemptLog], *, flush: bool = False) -> None:
    """Every attempt in turn (a preempted job has one training job per attempt)."""
    many = len(attempts) > 1
    for attempt in attempts:
        if many:
            print(f"==> {attempt.training_job} (attempt {attempt.attempt}) <==", file=out)
        for line in attempt.lines:
            stamp = datetime.fromtimestamp(line.timestamp / 1000, UTC).strftime("%H:%M:%S")
            stream = line.stream.split("/", 1)[-1]
            print(f"{stamp} {stream} {line.message}", file=out, flush=flush)
