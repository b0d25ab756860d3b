"""``export_trace``: the live account's job history as a trace that ``simulate`` replays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.files import check_writable, replacing

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.simulate.export import ExportTally


@dataclass(frozen=True)
class ExportedTrace:
    """The queues read and what was written (rows, bounds, jobs left out and why)."""

    queues: list[str]
    tally: ExportTally


def export_trace(
    account: Account,
    out: Path,
    queues: Sequence[str] | None = None,
    *,
    since: float | None = None,
    priorities: bool = False,
) -> ExportedTrace:
    """Write every job of ``queues`` (default: every quota-managed queue) submitted in the
    last ``since`` seconds to ``out``, in submission order; the file appears whole or not at
    all. ``priorities`` reads each job's priority (one DescribeServiceJob call per job)."""
    from quotactl.aws.history import export_trace as write_history
    from quotactl.aws.history import queue_names

    check_writable(out, "trace file")  # before the first call: a bad --out costs nothing
    names = queue_names(account.live, queues or None)
    with replacing(out, "trace file") as stream:
        tally = write_history(account.batch, names, since=since, priorities=priorities, out=stream)
    return ExportedTrace(names, tally)
