"""``history``: the live account's job attempts as a ledger, written whole or merged in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.api.log_file import check_appendable, companion
from quotactl.core.files import check_writable
from quotactl.core.history.written import HistoryWritten

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.jobs.live import LiveQueue


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
    from quotactl.aws.ledger import read_attempts
    from quotactl.core.history.ledger import merge, read_ledger, write_ledger

    check_writable(out, "ledger")  # before the first call: a bad --out costs nothing
    check_appendable(companion(out), "settings file")
    old = read_ledger(out) if append and out.exists() else []
    names = queue_names(account.live, queues or None)
    wanted = set(names)
    live = account.live.read_queues(list(names), statuses=())  # the shares, teams and settings
    open_jobs = {r.job_id: r.queue for r in old if r.outcome.open and r.queue in wanted}
    settled = {r.job_id for r in old} - set(open_jobs)
    after = account_time(account.batch, names[0]) - since if since is not None else None
    read = read_attempts(
        account.batch,
        names,
        since=after,
        teams={(q.name, s.name): s.team for q in live for s in q.shares if s.team},
        settled=settled,
        reread=open_jobs,
    )
    before = {r.key: r for r in old}
    rows = merge(old, read.rows)
    write_ledger(out, rows)
    settings_file = companion(out)
    recorded = record_settings(settings_file, live, names)
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
        settings=recorded,
        settings_file=settings_file,
    )


def record_settings(path: Path, live: Sequence[LiveQueue], names: Sequence[str]) -> int:
    """Append to ``path`` a settings record for each share of ``live`` whose settings differ
    from the last that ``path`` holds (every share the first time), and a deletion for each
    recorded share of ``names`` that is gone; stamped with the account's time of the read.
    Returns how many were added."""
    from datetime import UTC, datetime

    from quotactl.api.log_file import append_log, read_log_lines
    from quotactl.core.history.settings import (
        latest_settings,
        log_record,
        settings_records,
        share_settings,
    )
    from quotactl.core.resources.desired import ShareSpec, address_of

    known = latest_settings(settings_records(read_log_lines(path) or []) if path.exists() else [])
    at = datetime.fromtimestamp(max((q.read_at for q in live), default=0.0), UTC)
    records = []
    seen = set()
    for queue in live:
        for share in queue.shares:
            spec = ShareSpec(
                queue.name,
                share.name,
                dict(share.limits),
                share.strategy,
                share.borrow_limit,
                share.in_share_preemption,
                share.enabled,
            )
            fields = share_settings(spec)
            seen.add((queue.name, share.name))
            if known.get((queue.name, share.name)) != fields:
                address = address_of("share", share.name, queue.name)
                reason = "the share's settings when history ran"
                records.append(
                    log_record(
                        at, "history", "observe-share", address, None, fields, reason, "observed"
                    )
                )
    for (queue_name, share_name), held in sorted(known.items()):
        if queue_name in names and held is not None and (queue_name, share_name) not in seen:
            address = address_of("share", share_name, queue_name)
            reason = "the share was gone when history ran"
            records.append(
                log_record(at, "history", "delete-share", address, None, None, reason, "observed")
            )
    append_log(path, records, "settings file")
    return len(records)
