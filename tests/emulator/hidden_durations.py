"""Jobs whose true run time the estimate does not know: each runs until the test ends it.

The jobs are submitted without the ``quotactl:duration`` tag (the emulator would run them for
their MaxRuntimeInSeconds), and ``run_to_the_end`` moves the clock on in steps no longer than
the shortest true run time, cancelling each job when its true run time is over: so a job that
starts during a step never ends inside it, and every job ends at its true time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tests.emulator.estimate_support import DemoAccount

STARTING = 30.0
"""The default timing model's STARTING phase: a run counts from RUNNING."""


def run_to_the_end(account: DemoAccount, true: Mapping[str, float], now: float) -> None:
    """Advance from ``now`` until every job of ``true`` (name -> run seconds) has ended."""
    step = min(true.values())
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
                ends[name] = started / 1000 + STARTING + seconds
        due = min([*ends.values(), now + step])
        if due > now:
            account.advance(due - now)
            now = due
        for name, end in ends.items():
            if end <= now + 0.001:
                if account.job(name)["status"] not in ("SUCCEEDED", "FAILED"):
                    account.cancel(name)
                del left[name]
