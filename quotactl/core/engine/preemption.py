"""Choosing victims (pass steps 2 and 4 of docs/scheduling.md) on trial numbers.

Nothing changes unless it works. A job in a window (``Job.window``: reserved, or terminated
and stopping) is never a candidate; a victim in its preemption window is not active any more.

Both choosers walk candidates in the one victim order (``order.py``: lowest priority first,
then most recently started, then latest submitted, then the higher job ID), adding one
victim at a time to a trial copy of the capacity ledger of the head job's instance type,
and return the shortest prefix after which the head job fits. If even all
candidates would not be enough they return ``None`` and nobody is preempted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quotactl.core.engine.model import Job
    from quotactl.core.engine.state import EngineState


def victim_order(job: Job) -> tuple[int, int, int]:
    """``order.victim_key`` of an indexed job, reversed: sort with ``reverse=True``.

    (Negating the submission rank, a long integer, would cost more than the sort.)
    """
    started = job.started_at  # ``order.ms``, spelled out: a call per candidate
    return (-job.priority, round(started * 1000) if started is not None else 0, job._rank)


def reclaim_victims(state: EngineState, job: Job) -> list[Job] | None:
    """Cross-share preemption: borrowing jobs to stop so that ``job`` (within its own limit) fits.

    Candidates are the active jobs of the head's instance type in other shares that use more
    than their limit (B > 0: borrowers, and shares whose limit was lowered below their usage).
    A share stops being a candidate as soon as its trial usage is back within its limit.
    """
    cap = state.capacity
    t, n = job._t, job.count
    base = t * cap.S
    usage, limit, lends = cap.usage, cap.limit, cap.lends_k
    candidates = [
        v
        for r, active in enumerate(state._active)
        if r != job._s and usage[base + r] > limit[base + r]
        for v in active.values()
        if v._t == t and v.window is None
    ]
    if not candidates:
        return None
    candidates.sort(key=victim_order, reverse=True)
    used, idle, borrowed = cap.used[t], cap.idle[t], cap.borrowed[t]
    need_slack = n if lends[job._k] else 0
    trial: dict[int, int] = {}
    chosen: list[Job] = []
    for victim in candidates:
        k = victim._k
        u = trial.get(k, usage[k])
        lim = limit[k]
        if u <= lim:
            continue
        w = u - victim.count
        borrowed += (w - lim if w > lim else 0) - (u - lim)
        if lends[k] and w < lim:
            idle += lim - w
        used -= victim.count
        trial[k] = w
        chosen.append(victim)
        if used + n <= cap.cap[t] and idle - borrowed >= need_slack:
            return chosen
    return None


def in_share_victims(
    state: EngineState, job: Job
) -> tuple[list[Job] | None, tuple[int, int] | None]:
    """In-share preemption: lower-priority active jobs of the head's own share to stop.

    Returns ``(victims, None)`` when stopping ``victims`` lets the head start. Otherwise
    ``(None, headroom)``: what stopping every candidate would free (instances, slack), so the
    caller knows how much more capacity of the type would have to be free for it to work; or
    ``(None, None)`` if even that would leave the head over its own limit plus borrow cap.
    """
    cap = state.capacity
    t, k, n = job._t, job._k, job.count
    priority = job.priority
    # the candidates and what they hold, in one loop (a comprehension would make t and
    # priority cells, made anew on every call)
    candidates: list[Job] = []
    held = 0
    for v in state._active[job._s].values():
        if v._t == t and v.priority < priority and v.window is None:
            candidates.append(v)
            held += v.count
    u, lim, bcap, lends = cap.usage[k], cap.limit[k], cap.bcap[k], cap.lends_k[k]
    if u - held + n > lim + bcap:
        return None, None  # even stopping them all leaves the head over its limit and cap
    used, idle, borrowed = cap.used[t], cap.idle[t], cap.borrowed[t]
    if candidates:
        # ``sort(key=victim_order, reverse=True)`` with the key spelled out: a call per
        # candidate cost more than the sort (``started_at`` is set on every active job, in
        # whole milliseconds as AWS reports it; ``_rank`` is unique, so the job itself is
        # never compared)
        ranked = [
            (-v.priority, round((v.started_at or 0.0) * 1000), v._rank, v) for v in candidates
        ]
        ranked.sort(reverse=True)
        chosen: list[Job] = []
        for _, _, _, victim in ranked:
            w = u - victim.count
            borrowed += (w - lim if w > lim else 0) - (u - lim if u > lim else 0)
            if lends:
                idle += (lim - w if w < lim else 0) - (lim - u if u < lim else 0)
            used -= victim.count
            u = w
            chosen.append(victim)
            fits = u + n <= lim + bcap and used + n <= cap.cap[t]
            if fits and (not lends or idle - borrowed >= n):
                return chosen, None
    if u + n > lim + bcap:
        return None, None
    freed = cap.used[t] - used
    slack = (idle - borrowed) - (cap.idle[t] - cap.borrowed[t])
    return None, (freed, slack)
