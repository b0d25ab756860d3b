"""What the ``trace`` commands wrote: a synthetic trace, the account's history as a trace, a
public cluster trace converted; each is summed up on stderr once the file is whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.simulate.export import ExportTally
    from quotactl.core.simulate.generate import ShareWorkload
    from quotactl.core.simulate.public import ImportTally


@dataclass(frozen=True)
class GeneratedTrace:
    """How many jobs were written, the submit time of the last one, and each share's load;
    ``to`` is where (a path, or ``stdout``)."""

    jobs: int
    last_submit: float
    workloads: list[ShareWorkload]
    to: str = "stdout"


@dataclass(frozen=True)
class ExportedTrace:
    """The queues read and what was written to ``out`` (rows, bounds, jobs left out and why)."""

    queues: list[str]
    tally: ExportTally
    out: Path | None = None


@dataclass(frozen=True)
class ImportedTrace:
    """The public trace at ``source`` written to ``out``: what was kept and dropped, and why."""

    tally: ImportTally
    source: Path
    out: Path
