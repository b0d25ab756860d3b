"""The view of what ``history`` wrote: a summary on stderr once the ledger is whole
(``-q`` hides it)."""

from __future__ import annotations

from quotactl.core.history.written import HistoryWritten
from quotactl.core.outputs import Output
from quotactl.core.words import count_of
from quotactl.render.views import Screen, view


@view(HistoryWritten, Output.TEXT)
def show_written(written: HistoryWritten, screen: Screen) -> None:
    calls = written.calls
    detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
    screen.notice(
        f"quotactl: wrote {count_of(written.rows, 'attempt')} to {written.out}"
        f" ({written.added} new, {written.replaced} changed) from"
        f" {count_of(written.jobs, 'job')} read in {', '.join(written.queues)};"
        f" {count_of(sum(calls.values()), 'API call')} ({detail})"
    )
    if written.settings_file is not None:
        screen.notice(
            f"  {count_of(written.settings, 'settings record')} added to"
            f" {written.settings_file}"
            + ("" if written.settings else " (no share's settings changed)")
        )
    if written.missing_attempts:
        screen.notice(
            f"  warning: {count_of(written.missing_attempts, 'earlier attempt')} fell out of"
            " AWS's recent-attempts window and are not in the ledger"
        )
    if written.gone:
        screen.notice(
            f"  {count_of(written.gone, 'unfinished job')} in the ledger no longer known to AWS:"
            " kept as they were"
        )
