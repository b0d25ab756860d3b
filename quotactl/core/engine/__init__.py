"""The scheduling engine of docs/scheduling.md: lend, borrow, preempt. Pure, deterministic, no I/O.

One engine serves the emulator and the simulator. It keeps, per queue and instance type, each
share's limit L and usage U (own O = min(U, L), borrowed B = max(0, U - L)), and holds the
invariant: borrowers use only idle capacity of LEND and LEND_AND_BORROW shares, within their
borrow cap, and the environment's capacity is never exceeded. Time is whatever the caller says.

Two ways in:

* **Stateful** (the simulator, and the emulator, which keeps one engine per job queue and
  rebuilds it when another process wrote): ``QueueEngine(queue, timing=..., record=...)``
  with ``submit(job)`` (or ``offer(job)``, which starts an arrival at once when that is what
  the pass would do), ``set_priority``, ``remove``, ``schedule(now)``, ``fire(now)``,
  ``advance_to(t)``, ``next_event_time()`` and ``headroom``; decisions accumulate in
  ``engine.transitions`` for the caller to store.

* **Stateless** (``submit --dry-run``, ``job why``, ``status``'s headroom): hand a snapshot of
  a queue's live jobs to ``schedule(queue, jobs, now)`` and read the returned ``Transition``
  list: what one scheduling pass would decide now. Nothing the caller passed is modified, and
  the order the jobs are given in decides nothing (``order``).

Windows (``Timing.preemption_seconds``, ``termination_seconds``): a preemption victim keeps
its status and instances until its window ends while the job it was preempted for waits with
the capacity reserved; a terminated job keeps its instances until its window ends
(``model.Window``, ``lifecycle``). With zero windows the engine decides as an instant one.

Modules: ``model`` (values), ``order`` (the one order of jobs: dispatch and victims),
``reasons`` (AWS statusReason texts), ``capacity`` (the L/U/O/B ledger), ``runnable`` (a
share's queue of runnable jobs), ``state`` (jobs and bookkeeping), ``lifecycle`` (start,
release, preempt, timers), ``preemption`` (victim choice), ``passes`` (the scheduling pass),
``scheduler`` (the public ``QueueEngine``), ``api`` (the stateless entry point), ``live`` (a
live queue's settings and jobs, in the engine's values).
"""

from quotactl.core.engine.api import schedule
from quotactl.core.engine.model import (
    INSTANT,
    TIMING,
    TIMING_VARIABLE,
    Job,
    PreemptedAttempt,
    QueueModel,
    ShareModel,
    Timing,
    Transition,
    Window,
    parse_timing,
)
from quotactl.core.engine.scheduler import QueueEngine
from quotactl.core.states import JobStatus

__all__ = [
    "INSTANT",
    "TIMING",
    "TIMING_VARIABLE",
    "Job",
    "JobStatus",
    "PreemptedAttempt",
    "QueueEngine",
    "QueueModel",
    "ShareModel",
    "Timing",
    "Transition",
    "Window",
    "parse_timing",
    "schedule",
]
