"""What a change does, by its consequences: one trace on two configurations, share by share.

``compare(before, after)`` sets the two replays of ``quotactl.core.simulate.runs`` side by side:
per share and queue the before -> after of every figure, whether the share gains, loses or
keeps its service, and a verdict line naming who gains and who loses. The RESERVE baseline
(``simulate --baseline reserve``) is the special case whose ``before`` is the same
configuration with every share RESERVE.

Every job counts. A share that finishes fewer jobs, or leaves more jobs never started
(terminated by the runnable timeout or still waiting at the end), **loses**, whatever the waits
of the jobs that did start: the verdict names it first, with how many of its jobs no longer
run. Otherwise a share **gains** or **loses** by the first of these that differs, in this
order: jobs run, p95 wait, mean wait, instance-hours of work lost to preemption, preemptions.
Waits differ when they are more than ``max(1 s, 1%)`` apart, work lost when more than
``max(0.001, 1%)`` instance-hours. A job that never started waits forever: a p95 that falls
on one is ``never``, and a mean with one is infinite. A utilisation drop that comes with jobs
no longer run is said to be work not done. A share that takes jobs in only one of the
configurations (absent, or disabled, in the other) is **added** or **removed**.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from quotactl.core.durations import human_duration
from quotactl.core.simulate.metrics import instance_hours

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.core.simulate.metrics import QueueResult, ShareResult, SimulationResult
    from quotactl.core.simulate.runs import Replay

MAX_NAMED = 3
"""Shares the verdict names for each of gains and loses; the rest are counted."""


class ShareVerdict(StrEnum):
    GAINS = "gains"
    LOSES = "loses"
    UNCHANGED = "unchanged"
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True)
class ShareChange:
    """One share before -> after; ``before`` or ``after`` is None when it takes no jobs there."""

    queue: str
    share: str
    team: str | None
    before: ShareResult | None
    after: ShareResult | None
    outcome: ShareVerdict
    reason: str | None
    """What decided a gain or loss, worded as in the verdict (``p95 wait 1.0 h → 0 s``)."""
    not_replayed: int = 0
    """Trace rows of a removed share that the ``after`` side could not take (or of an added
    share that the ``before`` side could not)."""


@dataclass(frozen=True)
class QueueChange:
    queue: str
    before: QueueResult | None
    after: QueueResult | None


@dataclass(frozen=True)
class Comparison:
    """Two replays of one trace; ``before`` is the reference, ``after`` the configuration under
    review."""

    before: Replay
    after: Replay
    shares: tuple[ShareChange, ...]
    queues: tuple[QueueChange, ...]
    verdict: str

    @property
    def against_reserve(self) -> bool:
        return self.before.side.override == "RESERVE"

    @property
    def trace_jobs(self) -> int:
        """Rows of the trace: what either side replayed plus what it had no share for."""
        return max(r.result.jobs + sum(r.skipped.values()) for r in (self.before, self.after))

    def by_outcome(self, outcome: ShareVerdict) -> tuple[ShareChange, ...]:
        """The shares with ``outcome``; of the losers, those that no longer run some of their
        jobs first."""
        found = [s for s in self.shares if s.outcome is outcome]
        if outcome is ShareVerdict.LOSES:
            found.sort(
                key=lambda s: not (s.before and s.after and no_longer_run(s.before, s.after))
            )
        return tuple(found)


def compare(before: Replay, after: Replay) -> Comparison:
    """Share by share and queue by queue, what ``after`` changes against ``before``."""
    old, new = _taking_jobs(before), _taking_jobs(after)
    keys = list(dict.fromkeys([*new, *old]))
    keys.sort(key=_order(after.result, before.result))
    shares = tuple(_share_change(k, old.get(k), new.get(k), before, after) for k in keys)
    old_q = {q.queue: q for q in before.result.queues}
    new_q = {q.queue: q for q in after.result.queues}
    names = list(dict.fromkeys([*new_q, *old_q]))
    queues = tuple(QueueChange(n, old_q.get(n), new_q.get(n)) for n in names)
    subject = "sharing" if before.side.override == "RESERVE" else "the change"
    verdict = _verdict(subject, before.result, after.result, shares)
    return Comparison(before, after, shares, queues, verdict)


def _taking_jobs(replay: Replay) -> dict[tuple[str, str], ShareResult]:
    """The side's shares that take jobs (present and enabled), by (queue, share)."""
    enabled = {(q.name, s.name) for q in replay.side.queues for s in q.shares if s.enabled}
    return {(s.queue, s.share): s for s in replay.result.shares if (s.queue, s.share) in enabled}


def _order(*results: SimulationResult) -> Callable[[tuple[str, str]], tuple[int, int]]:
    """Shares in the order the configurations list them, ``after``'s first."""
    position: dict[tuple[str, str], int] = {}
    queues: dict[str, int] = {}
    for result in results:
        for q in result.queues:
            queues.setdefault(q.queue, len(queues))
        for s in result.shares:
            position.setdefault((s.queue, s.share), len(position))
    return lambda key: (queues.get(key[0], len(queues)), position[key])


def _share_change(
    key: tuple[str, str],
    old: ShareResult | None,
    new: ShareResult | None,
    before: Replay,
    after: Replay,
) -> ShareChange:
    queue, share = key
    either = new or old
    team = either.team if either else None
    name = f"{queue}/{share}"
    if old is None:
        skipped = before.skipped.get(name, 0)
        return ShareChange(queue, share, team, None, new, ShareVerdict.ADDED, None, skipped)
    if new is None:
        skipped = after.skipped.get(name, 0)
        return ShareChange(queue, share, team, old, None, ShareVerdict.REMOVED, None, skipped)
    outcome, reason = _judge(old, new)
    return ShareChange(queue, share, team, old, new, outcome, reason)


def no_longer_run(old: ShareResult, new: ShareResult) -> int:
    """How many of the share's jobs no longer run: fewer finished, or more never started."""
    return max(0, old.finished - new.finished, new.not_run - old.not_run)


def _jobs(old: ShareResult, new: ShareResult) -> tuple[ShareVerdict, str] | None:
    lost = no_longer_run(old, new)
    if lost:
        return ShareVerdict.LOSES, (
            f"{lost:,} of its {new.submitted:,} jobs no longer run: finished"
            f" {old.finished:,} \u2192 {new.finished:,}, never started (terminated or still"
            f" waiting) {old.not_run:,} \u2192 {new.not_run:,}"
        )
    more = max(new.finished - old.finished, old.not_run - new.not_run)
    if more > 0:
        return ShareVerdict.GAINS, (
            f"{more:,} more of its jobs run: finished {old.finished:,} \u2192 {new.finished:,}"
        )
    return None


def _judge(old: ShareResult, new: ShareResult) -> tuple[ShareVerdict, str | None]:
    jobs = _jobs(old, new)
    if jobs is not None:
        return jobs
    inf = math.inf
    figures = (
        ("p95 wait", old.wait.p95 if old.wait else inf, new.wait.p95 if new.wait else inf, 1.0),
        (
            "mean wait",
            old.wait.judged_mean if old.wait else inf,
            new.wait.judged_mean if new.wait else inf,
            1.0,
        ),
        ("work lost", old.preempted_hours, new.preempted_hours, 0.001),
        ("preemptions", float(old.preemptions), float(new.preemptions), 0.5),
    )
    for what, a, b, floor in figures:
        if a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= _slack(a, b, floor)):
            continue
        outcome = ShareVerdict.GAINS if b < a else ShareVerdict.LOSES
        return outcome, f"{what} {_figure(what, a)} \u2192 {_figure(what, b)}"
    return ShareVerdict.UNCHANGED, None


def _slack(a: float, b: float, floor: float) -> float:
    return max(floor, 0.01 * max(a, b))


def _figure(what: str, value: float) -> str:
    if what == "preemptions":
        return f"{value:,.0f}"
    if what == "work lost":
        return f"{instance_hours(value)} instance-hours"
    return "never" if not math.isfinite(value) else human_duration(value)


def label(change: ShareChange, several_queues: bool = False) -> str:
    """How the verdict names a share: by its team when the config says whose it is."""
    name = f"team {change.team}" if change.team else f"share {change.share}"
    return f"{name} in {change.queue}" if several_queues else name


def _whose(change: ShareChange, several_queues: bool) -> str:
    where = f" in {change.queue}" if several_queues else ""
    team = f"team {change.team}'s " if change.team else ""
    return f"{team}share {change.share}{where}"


def _verdict(
    subject: str,
    before: SimulationResult,
    after: SimulationResult,
    shares: Sequence[ShareChange],
) -> str:
    several = len({s.queue for s in shares}) > 1
    parts = []
    # shares that no longer run some of their jobs come first, whatever else changed
    starved = [
        s
        for s in shares
        if s.outcome is ShareVerdict.LOSES
        and s.before is not None
        and s.after is not None
        and no_longer_run(s.before, s.after)
    ]
    for s in starved:
        parts.append(f"{label(s, several)} LOSES ({s.reason})")
    not_done = sum(no_longer_run(s.before, s.after) for s in starved if s.before and s.after)
    old, new = before.utilisation, after.utilisation
    if old is not None and new is not None:
        if round(old, 2) == round(new, 2):
            parts.append(f"{subject} keeps utilisation at {new:.0%}")
        else:
            verb = "raises" if new > old else "lowers"
            why = ""
            if new < old and not_done:
                why = f" (work not done: {not_done:,} jobs no longer run)"
            parts.append(f"{subject} {verb} utilisation from {old:.0%} to {new:.0%}{why}")
    for outcome, verb, nobody in (
        (ShareVerdict.GAINS, "gains", "no share gains"),
        (ShareVerdict.LOSES, "loses", "no share loses"),
    ):
        moved = [s for s in shares if s.outcome is outcome and s not in starved]
        if not moved and outcome is ShareVerdict.LOSES and starved:
            continue
        if not moved:
            parts.append(nobody)
            continue
        named = [f"{label(s, several)} {verb} ({s.reason})" for s in moved[:MAX_NAMED]]
        if len(moved) > MAX_NAMED:
            named.append(f"{len(moved) - MAX_NAMED} more {verb[:-1]}")
        parts.append(", ".join(named))
    for s in shares:
        if s.outcome is ShareVerdict.REMOVED:
            jobs = ""
            if s.not_replayed:
                jobs = f" ({s.not_replayed:,} of its jobs have nowhere to run)"
            parts.append(f"{_whose(s, several)} is removed{jobs}")
        elif s.outcome is ShareVerdict.ADDED:
            parts.append(f"{_whose(s, several)} is added")
    if before.preemptions or after.preemptions:
        parts.append(
            f"preemptions {before.preemptions:,} \u2192 {after.preemptions:,}"
            f" (work lost {instance_hours(before.preempted_hours)}"
            f" \u2192 {instance_hours(after.preempted_hours)} instance-hours)"
        )
    else:
        parts.append("no job is preempted")
    return "; ".join(parts)
