"""The scheduling engine of docs/scheduling.md: lend, borrow, preempt. Pure, deterministic, no I/O.

One engine serves the emulator and the simulator. It keeps, per queue and instance type, each
share's limit L and usage U (own O = min(U, L), borrowed B = max(0, U - L)), and holds the
invariant: borrowers use only idle capacity of LEND and LEND_AND_BORROW shares, within their
borrow cap, and the environment's capacity is never exceeded. Time is whatever the caller says.

Two ways in:

* **Stateless, for the emulator** (jobs live in its database): hand a snapshot of a queue's
  live jobs to ``schedule(queue, jobs, now)`` or ``advance(queue, jobs, start, end)`` and
  store the returned ``Transition`` list. Nothing the caller passed is modified::

      from quotactl.core.engine import Job, JobStatus, QueueModel, advance, schedule

      queue = QueueModel.from_desired(desired, "training")
      jobs = [Job(job_id=row.id, share=row.share, instance_type=row.type, count=row.count,
                  priority=row.priority, submitted_at=row.created, run_seconds=row.duration,
                  status=JobStatus(row.status), status_since=row.status_since,
                  started_at=row.started_at, preemption_retries=row.retries,
                  preemptions=row.preempted) for row in rows]
      for tr in schedule(queue, jobs, now):          # after Submit/UpdateServiceJob
          db.set_status(tr.job_id, tr.status, tr.reason, tr.at, tr.preempted_attempt)
      for tr in advance(queue, jobs, last_tick, now):   # `local advance 2h`
          db.set_status(tr.job_id, tr.status, tr.reason, tr.at, tr.preempted_attempt)

  Behind the emulator's ``Scheduler`` seam (``schedule(QueueView, now) -> [Decision]``) a
  transition maps to one decision: SCHEDULED -> ``Dispatch``; a ``preempted_attempt`` ->
  ``Preempt(job, attempt.status_reason)`` (RUNNABLE again, or FAILED once
  ``preemption_retries`` are used up); RUNNABLE with a ``MISCONFIGURATION:`` reason -> ``Hold``
  (a RUNNABLE transition with no reason clears a stale one). Jobs with equal
  ``submitted_at`` keep the order they are given in.

* **Stateful, for the simulator** (and an emulator that keeps one engine alive):
  ``QueueEngine(queue, timing=..., record=...)`` with ``submit(job)`` (or ``offer(job)``,
  which starts an arrival at once when that is what the pass would do), ``set_priority``,
  ``remove``, ``schedule(now)``, ``fire(now)``, ``advance_to(t)`` and ``next_event_time()``;
  decisions accumulate in ``engine.transitions``.

Modules: ``model`` (values), ``reasons`` (AWS statusReason texts), ``capacity`` (the L/U/O/B
ledger), ``state`` (jobs and bookkeeping), ``lifecycle`` (start, release, preempt, timers),
``preemption`` (victim choice), ``passes`` (the scheduling pass), ``scheduler`` (the public
``QueueEngine``), ``api`` (the stateless entry points).
"""

from quotactl.core.engine.api import advance, next_event_time, schedule
from quotactl.core.engine.model import (
    EMULATOR_TIMING,
    FINAL,
    HOLDING,
    JOB_STATUSES,
    SIMULATOR_TIMING,
    UNFINISHED,
    Job,
    JobStatus,
    PreemptedAttempt,
    QueueModel,
    ShareModel,
    Timing,
    Transition,
)
from quotactl.core.engine.scheduler import QueueEngine

__all__ = [
    "EMULATOR_TIMING",
    "FINAL",
    "HOLDING",
    "JOB_STATUSES",
    "SIMULATOR_TIMING",
    "UNFINISHED",
    "Job",
    "JobStatus",
    "PreemptedAttempt",
    "QueueEngine",
    "QueueModel",
    "ShareModel",
    "Timing",
    "Transition",
    "advance",
    "next_event_time",
    "schedule",
]
