"""``history``: the live account's job attempts as a ledger, written whole or merged in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.files import check_writable
from quotactl.core.history.written import HistoryWritten

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from quotactl.aws.account import Account


def history(
    account: Account,
    out: Path,
    queues: Sequence[str] | None = None,
    *,
    since: float | None = None,
    append: bool = False,
) -> HistoryWritten:
    """Write the attempts of every job of ``queues`` (default: every quota-managed queue)
    created in the last ``since`` seconds to ``out``. With ``append``, merge them into the
    ledger already at ``out``: new rows are added, changed ones replaced, and every job of an
    unfinished row there is read again, however old. The file is replaced in one rename."""
    from quotactl.aws.job_history import account_time, queue_names
    from quotactl.aws.ledger import read_attempts, share_teams
    from quotactl.core.history.ledger import merge, read_ledger, write_ledger

    check_writable(out, "ledger")  # before the first call: a bad --out costs nothing
    old = read_ledger(out) if append and out.exists() else []
    names = queue_names(account.live, queues or None)
    wanted = set(names)
    open_jobs = {r.job_id: r.queue for r in old if r.outcome.open and r.queue in wanted}
    settled = {r.job_id for r in old} - set(open_jobs)
    after = account_time(account.batch, names[0]) - since if since is not None else None
    read = read_attempts(
        account.batch,
        names,
        since=after,
        teams=share_teams(account.live, names),
        settled=settled,
        reread=open_jobs,
    )
    before = {r.key: r for r in old}
    rows = merge(old, read.rows)
    write_ledger(out, rows)
    return HistoryWritten(
        queues=names,
        jobs=read.jobs,
        rows=len(rows),
        added=sum(1 for r in read.rows if r.key not in before),
        replaced=sum(1 for r in read.rows if r.key in before and before[r.key] != r),
        missing_attempts=read.missing,
        gone=len(read.gone),
        out=out,
        calls=dict(account.calls),
    )
