"""Estimates of when a job starts, as text (``job why``, ``jobs --eta``, ``submit --dry-run``):
"expected to start in about 2h10m (p50), between 1h40m and 5h (p10 to p90); 3rd in share nlp,
7th in queue training". The JSON views are in ``jobs_json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.durations import format_duration
from quotactl.core.estimate import Basis
from quotactl.render.jobs_json import iso
from quotactl.render.symbols import DASH

if TYPE_CHECKING:
    from quotactl.core.estimate import Estimates, Eta

_BASIS_WORDS = {
    "known": "every run time it waits on is known",
    "history": "run times drawn from the share's history",
    "time-limit": "run times ahead of it are time limits (upper bounds): it may well start sooner",
}


def span(seconds: float) -> str:
    """A wait as people say it: ``45s``, ``12m``, ``2h10m`` (to the minute from 2 minutes)."""
    if seconds < 1:
        return "0s"
    if seconds < 120:
        return f"{round(seconds)}s"
    return format_duration(round(seconds / 60) * 60)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def eta_sentence(eta: Eta, now: float, share: str | None, queue: str) -> str:
    """One line: when (p50, and p10-p90 unless exact), how sure, and the places in line."""
    if eta.p50 is None:
        when = (
            "not expected to start while the queue stays as it is: what runs and waits "
            "now never frees what it needs"
        )
    elif eta.exact:
        when = f"expected to start in {span(eta.p50 - now)} (at {iso(eta.p50)})"
    elif eta.p10 == eta.p90 and eta.basis is Basis.TIME_LIMIT:
        when = f"expected to start within about {span(eta.p50 - now)} (at {iso(eta.p50)})"
    else:
        low = span(eta.p10 - now) if eta.p10 is not None else DASH
        high = span(eta.p90 - now) if eta.p90 is not None else "later than every run showed"
        when = (
            f"expected to start in about {span(eta.p50 - now)} (p50), between {low} and "
            f"{high} (p10\u2013p90)"
        )
    places = []
    if eta.position_in_share is not None:
        places.append(f"{ordinal(eta.position_in_share)} in share {share}")
    if eta.position_in_queue is not None:
        places.append(f"{ordinal(eta.position_in_queue)} in queue {queue}")
    return when + ("; " + ", ".join(places) if places else "")


def eta_cell(eta: Eta | None, now: float) -> str:
    """The ETA column of ``jobs --eta``: ``2h10m`` (exact), ``~2h10m`` (the p50), ``never``."""
    if eta is None:
        return DASH
    if eta.p50 is None:
        return "never"
    return ("" if eta.exact else "~") + span(eta.p50 - now)


def basis_words(eta: Eta) -> str:
    return _BASIS_WORDS[eta.basis.word]


def cost_line(estimates: Estimates) -> str:
    """How the estimate was made and what it read: runs, history, API calls, new jobs."""
    runs = estimates.runs
    how = (
        "1 run of the queue through the scheduler"
        if runs == 1
        else f"{runs} runs of the queue through the scheduler (seed {estimates.seed})"
    )
    if estimates.history:
        source = "the account's finished jobs" if estimates.history == "live" else "ledger"
        how += f", run times drawn from {source}"
        if estimates.history != "live":
            how += f" {estimates.history}"
    calls = dict(estimates.calls)
    total = sum(calls.values())
    detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
    return (
        f"estimated by {how}, in {estimates.seconds:.2f}s after {total} API call"
        f"{'s' if total != 1 else ''}" + (f" ({detail})" if detail else "") + "; jobs not yet "
        "submitted are not assumed"
    )
