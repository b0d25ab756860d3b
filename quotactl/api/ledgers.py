"""A ledger (``history --out``) as the run-time history estimates draw from."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.engine import Timing
    from quotactl.core.estimate import ShareHistory


def ledger_history(path: Path, queue: str, timing: Timing) -> ShareHistory:
    """The run times of the SUCCEEDED attempts of ``queue``'s shares in the ledger at
    ``path``: ``started_at`` (the start of STARTING) to ``stopped_at``, less the STARTING
    phase of the timing model, as the engine counts a run."""
    from quotactl.core.estimate import ShareHistory
    from quotactl.core.history.ledger import Outcome, read_ledger

    return ShareHistory.of(
        (row.share, (row.stopped_at - row.started_at).total_seconds() - timing.starting_seconds)
        for row in read_ledger(path)
        if row.outcome is Outcome.SUCCEEDED
        and row.queue == queue
        and row.share
        and row.started_at is not None
        and row.stopped_at is not None
    )
