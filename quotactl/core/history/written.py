"""What ``history`` read and wrote, summed up on stderr once the ledger is whole."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class HistoryWritten:
    """What ``history`` read and wrote: the queues, jobs read, the ledger's rows (and of them,
    new and replaced ones), attempts AWS no longer lists, and jobs AWS no longer knows; the
    ledger's path and the API calls it took, by operation."""

    queues: list[str]
    jobs: int
    rows: int
    added: int
    replaced: int
    missing_attempts: int
    gone: int
    out: Path | None = None
    calls: dict[str, int] = field(default_factory=dict)
    settings: int = 0
    """Settings records added beside the ledger (shares whose settings changed since the last
    record, or seen for the first time)."""
    settings_file: Path | None = None
