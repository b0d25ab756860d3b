"""Jobs whose true run time the estimate does not know: each runs until the test ends it.

The jobs are submitted without the ``quotactl:duration`` tag (the emulator would run them for
their MaxRuntimeInSeconds), and ``run_to_the_end`` moves the clock on in steps no longer than
the shortest true run time, cancelling each job so that it lets its instances go when its true
run time is over (a cancelled job holds them for the termination window): so a job that starts
during a step never ends inside it, and every job ends at its true time. ``startedAt`` is when
an attempt leaves SCHEDULED; the run counts from RUNNING, STARTING later; a cancel comes at
least the shortest run time less the termination window after that, so always while the job is
RUNNING (a job in its termination window keeps its instances and is no preemption victim).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tests.emulator.estimate_support import DemoAccount

STARTING = TIMING.starting_seconds
"""The default timing model's STARTING phase: a run counts from RUNNING."""
TERMINATING = TIMING.termination_seconds
"""A cancelled job keeps its instances this long: it is cancelled that much before its end."""


def run_to_the_end(account: DemoAccount, true: Mapping[str, float], now: float) -> None:
    """Advance from ``now`` until every job of ``true`` (name -> run seconds) has ended."""
    step = min(true.values()) - TERMINATING
    assert step > 0, "true run times must be longer than the termination window"
    left = dict(true)
    while left:
        ends: dict[str, float] = {}
        for name, seconds in left.items():
            job = account.job(name)
            if job["status"] in ("SUCCEEDED", "FAILED"):
                ends[name] = now
                continue
            started = job.get("startedAt")
            if started is not None and job["status"] in ("STARTING", "RUNNING"):
                ends[name] = started / 1000 + STARTING + seconds - TERMINATING
        due = min([*ends.values(), now + step])
        if due > now:
            account.advance(due - now)
            now = due
        for name, end in ends.items():
            if end <= now + 0.001:
                if account.job(name)["status"] not in ("SUCCEEDED", "FAILED"):
                    account.cancel(name)
                del left[name]
