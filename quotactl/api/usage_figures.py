"""``usage``: who used, borrowed and lent what over a window, from the live account or ledgers."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.core.govern.usage import Held
    from quotactl.core.history.ledger import Attempt
    from quotactl.core.history.report import By, Every, UsageReport, UsageRun
    from quotactl.core.history.settings import SettingsRecord
    from quotactl.core.resources.desired import DesiredState

DEFAULT_SINCE = 30 * 86_400.0
"""Without ``--since`` or ``--from``: the last 30 days."""
LOOK_BACK = 28 * 86_400.0
"""Jobs read from the live account start this long before the window: a SageMaker training job
runs 28 days at most, so one submitted earlier can hardly still run in the window."""


@dataclass(frozen=True)
class UsageWindow:
    """What the command line asked for: ``since`` seconds back from the end, or ``start`` and
    ``end`` (either may be None: the default)."""

    since: float | None = None
    start: datetime | None = None
    end: datetime | None = None


def usage_window(
    *, since: float | None = None, start: str | None = None, end: str | None = None
) -> UsageWindow:
    """``usage``'s window as the command line gives it: ``--since`` seconds, or ``--from``
    (and ``--to``) ISO 8601 times; a ``usage`` error names a bad one."""
    from quotactl.errors import UsageError

    if since is not None and start is not None:
        raise UsageError("give --since DURATION or --from TIME, not both")
    return UsageWindow(since=since, start=_time("--from", start), end=_time("--to", end))


def _time(option: str, text: str | None) -> datetime | None:
    from quotactl.core.history.ledger import parse_time
    from quotactl.errors import UsageError

    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError:
        raise UsageError(
            f"{option}: {text!r} is not an ISO 8601 time", hint="e.g. 2026-11-01T00:00:00Z"
        ) from None


def usage_run(
    desired: DesiredState,
    *,
    account: Account | None = None,
    ledgers: Sequence[Path] = (),
    window: UsageWindow = UsageWindow(),
    by: str = "share",
    every: str | None = None,
    report: bool = False,
    queues: Sequence[str] | None = None,
    teams: Sequence[str] | None = None,
    prices: Path | None = None,
    grace: float | None = None,
) -> UsageRun:
    """``usage`` as its command shows it: ``by`` share or team, ``every`` day or week (with
    ``report`` and no ``every``, per day for the page only)."""
    from quotactl.core.history.report import By, Every, UsageRun

    periods = every or ("day" if report else None)
    figures = usage(
        desired,
        account=account,
        ledgers=ledgers,
        window=window,
        by=By(by),
        every=Every(periods) if periods else None,
        queues=queues,
        teams=teams,
        prices=prices,
        grace=grace,
    )
    return UsageRun(figures, periods_shown=every is not None)


def ledger_attempts(paths: Sequence[Path]) -> list[Attempt]:
    """The rows of every ledger in ``paths``, merged by (job_id, attempt), later files winning."""
    from quotactl.core.history.ledger import merge, read_ledger

    rows = read_ledger(paths[0])  # as written by `history`: one row per key, in order
    for path in paths[1:]:
        rows = merge(rows, read_ledger(path))
    return rows


def live_attempts(account: Account, since: float | None) -> list[Attempt]:
    """Every attempt of every quota-managed queue's jobs created after ``since`` (epoch s)."""
    from quotactl.aws.job_history import queue_names
    from quotactl.aws.ledger import read_attempts, share_teams

    names = queue_names(account.live, None)
    teams = share_teams(account.live, names)
    return read_attempts(account.batch, names, since=since, teams=teams).rows


def usage(
    desired: DesiredState,
    *,
    account: Account | None = None,
    ledgers: Sequence[Path] = (),
    window: UsageWindow = UsageWindow(),
    by: By | None = None,
    every: Every | None = None,
    queues: Sequence[str] | None = None,
    teams: Sequence[str] | None = None,
    prices: Path | None = None,
    grace: float | None = None,
) -> UsageReport:
    """The usage report: from ``ledgers`` when given, else from ``account``'s jobs; the
    limits and strategies are ``desired``'s, or where the settings records among ``ledgers``
    (``apply`` and ``govern`` logs, ``history``'s file beside each ledger) say otherwise,
    theirs. The window ends at ``window.end``, else at the
    account's clock (the latest time in the ledgers), and starts ``since`` before that
    (default 30 days) unless ``window.start`` is given."""
    from quotactl.config.prices import load_prices
    from quotactl.core.govern.figures import budget_figures
    from quotactl.core.history.ledger import from_epoch
    from quotactl.core.history.periods import first_active_period
    from quotactl.core.history.report import By
    from quotactl.core.history.usage import DEFAULT_GRACE, usage_of
    from quotactl.errors import UsageError

    priced = load_prices(prices) if prices is not None else None  # before any call
    settings: list[SettingsRecord] | None = None
    if ledgers:
        from quotactl.api.log_file import settings_of

        found, settings = settings_of(ledgers)
        rows = ledger_attempts(found) if found else []
        end = window.end or _latest(rows)
        start = window.start or end - timedelta(seconds=window.since or DEFAULT_SINCE)
    else:
        if account is None:
            raise UsageError("usage reads the live account or --history ledgers: give either")
        from quotactl.aws.job_history import account_time, queue_names

        names = queue_names(account.live, None)
        end = window.end or from_epoch(account_time(account.batch, names[0]))
        start = window.start or end - timedelta(seconds=window.since or DEFAULT_SINCE)
        rows = live_attempts(account, start.timestamp() - LOOK_BACK)
    known_teams: set[str | None] = {s.team for s in desired.shares}
    known_teams |= {r.team for r in rows}
    known_queues: set[str | None] = {s.queue for s in desired.shares}
    known_queues |= {r.queue for r in rows}
    _check_names("team", teams, known_teams)
    _check_names("job queue", queues, known_queues)
    if window.start is None and window.since is None:
        start = first_active_period(start, (r.submitted_at for r in rows), every)
    if end <= start:
        raise UsageError(
            f"the window is empty: --from {start:%Y-%m-%dT%H:%M:%SZ} is not before"
            f" --to {end:%Y-%m-%dT%H:%M:%SZ}"
        )
    figures = usage_of(
        rows,
        desired.shares,
        start=start,
        end=end,
        by=by or By.SHARE,
        every=every,
        queues=set(queues) if queues else None,
        teams=set(teams) if teams else None,
        prices=priced,
        grace=DEFAULT_GRACE if grace is None else grace,
        settings=settings,
    )
    budgets = budget_figures(desired, held_of(rows), end)
    if teams:
        budgets = tuple(b for b in budgets if b.team in teams)
    return replace(figures, budgets=budgets)


def held_of(rows: Sequence[Attempt]) -> list[Held]:
    """The instances each started attempt held, and from when to when (None: still holding)."""
    from quotactl.core.govern.usage import Held

    return [
        Held(f"share.{r.queue}/{r.share}", r.instance_type, r.count, r.started_at, r.stopped_at)
        for r in rows
        if r.started_at is not None and r.share is not None and r.instance_type is not None
    ]


def _check_names(what: str, wanted: Sequence[str] | None, known: set[str | None]) -> None:
    """``not-found`` for a ``--team`` or ``--queue`` that neither the config nor the jobs name."""
    from quotactl.errors import NotFoundError

    names = sorted(n for n in known if n)
    for name in wanted or ():
        if name not in known:
            raise NotFoundError(
                f"no {what} {name!r} in the configuration or the jobs read",
                hint=f"{what}s: {', '.join(names)}" if names else None,
            )


def _latest(rows: Sequence[Attempt]) -> datetime:
    from datetime import UTC, datetime

    times = [t for r in rows for t in (r.submitted_at, r.started_at, r.stopped_at) if t]
    return max(times, default=datetime.now(UTC))
