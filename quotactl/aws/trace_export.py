"""``trace export``: the live account's job history written as a trace, as it is listed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.aws.job_history import account_time, job_history
from quotactl.aws.responses import requested_seconds
from quotactl.core.simulate.export import ExportTally, job_row, needs_detail, trace_of
from quotactl.core.simulate.trace import write_trace

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from quotactl.aws.calls import BatchCalls


def export_trace(
    api: BatchCalls,
    queues: Sequence[str],
    *,
    since: float | None,
    priorities: bool,
    out: TextIO,
) -> ExportTally:
    """Write the job history of ``queues`` to ``out`` as a trace; ``since`` is a look-back in
    seconds from the account's clock."""
    now = account_time(api, queues[0])
    tally = ExportTally()
    describe = (lambda _: True) if priorities else needs_detail
    after = now - since if since is not None else None
    history = job_history(api, queues, since=after, describe=describe)
    rows = (
        row
        for job, detail in history
        if (row := job_row(job, requested_seconds(detail), now, tally)) is not None
    )
    write_trace(trace_of(rows, tally), out)
    return tally
