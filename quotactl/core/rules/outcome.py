"""The checks judged on what a simulation measured: waits and preemptions.

A rule names a share or a team. For a team, each of its shares must be within ``max_wait``
(a team is as well served as its worst share), while ``max_preemptions`` adds the team's
shares up (preemptions and work lost are costs, and costs add). Every job counts: a job that
never started (terminated by the queue's runnable timeout, or still waiting when the replay
ended) waits forever, so a p95 that falls on one is ``never`` and a mean with one is infinite:
either fails ``max_wait``. A share sent no jobs passes (nothing waited).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from quotactl.core.durations import format_duration
from quotactl.core.rules.model import Check
from quotactl.core.rules.verdict import Finding
from quotactl.core.words import count_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.rules.model import Rule
    from quotactl.core.simulate.metrics import ShareResult, SimulationResult


def max_wait(rule: Rule, result: SimulationResult) -> Finding:
    subject = rule.subject or "every share"
    shares = _measured(rule, result)
    if not shares:
        return Finding(True, f"{subject}: no jobs in the trace")
    over: list[str] = []
    seen: list[str] = []
    for share in shares:
        where = f"{share.queue}/{share.share}"
        if share.wait is None:
            if share.submitted:
                over.append(f"{where}: none of its {share.submitted} jobs started")
            continue
        never = share.wait.never_started
        for what, bound, got in (
            ("p95", rule.p95, share.wait.p95),
            ("mean", rule.mean, share.wait.judged_mean),
        ):
            if bound is None:
                continue
            shown = _wait(got, never)
            seen.append(f"{where} {what} {shown}")
            if got > bound:
                over.append(f"{where} {what} {shown} > {_duration(bound)}")
    if over:
        return Finding(False, f"{subject} waits too long: {'; '.join(over)}")
    bounds = _bounds(rule)
    return Finding(True, f"{subject} within {bounds}: {'; '.join(seen) or 'no job waited'}")


def _wait(seconds: float, never: int) -> str:
    if math.isinf(seconds):
        return f"never ({count_of(never, 'job')} never started)"
    return _duration(seconds)


def max_preemptions(rule: Rule, result: SimulationResult) -> Finding:
    subject = rule.subject or "every share"
    shares = _measured(rule, result)
    count = sum(s.preemptions for s in shares)
    lost = sum(s.preempted_hours for s in shares)
    over: list[str] = []
    if rule.count is not None and count > rule.count:
        over.append(f"{count_of(count, 'preemption')} > {rule.count}")
    if rule.work_lost is not None and lost > rule.work_lost:
        over.append(f"{lost:,.1f} instance-hours lost > {rule.work_lost:g}")
    if over:
        return Finding(False, f"{subject}: {'; '.join(over)}")
    return Finding(
        True, f"{subject}: {count_of(count, 'preemption')}, {lost:,.1f} instance-hours lost"
    )


OUTCOME: dict[Check, Callable[[Rule, SimulationResult], Finding]] = {
    Check.MAX_WAIT: max_wait,
    Check.MAX_PREEMPTIONS: max_preemptions,
}


def _measured(rule: Rule, result: SimulationResult) -> Sequence[ShareResult]:
    if rule.team is not None:
        return [s for s in result.shares if s.team == rule.team]
    if rule.share is not None:
        return [s for s in result.shares if rule.share in (s.share, f"{s.queue}/{s.share}")]
    return result.shares


def _bounds(rule: Rule) -> str:
    parts = []
    if rule.p95 is not None:
        parts.append(f"p95 {_duration(rule.p95)}")
    if rule.mean is not None:
        parts.append(f"mean {_duration(rule.mean)}")
    return " and ".join(parts)


def _duration(seconds: float) -> str:
    """``45s``, ``12m30s``, ``13h34m``: to the minute from an hour on."""
    whole = round(seconds)
    return format_duration(round(whole / 60) * 60 if whole >= 3600 else whole)
