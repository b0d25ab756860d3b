"""What apply waits with: a clock and an executor, passed in so that core never waits by itself.

The executor and the stack lock read time and sleep only through a ``Clock``, and run calls
only on an executor made by an ``ExecutorFactory``. ``SYSTEM_CLOCK`` and ``thread_pool`` are
the real ones, the defaults of ``apply`` and ``acquire``; this module is the only place in
``quotactl.core`` that calls ``time.sleep`` or builds a thread pool. Tests pass fakes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent import futures
from typing import Protocol, TypeAlias


class Clock(Protocol):
    """Seconds since the epoch, and a way to let them pass."""

    def now(self) -> float:
        """The time now, in seconds since the epoch (the lock writes it into tags)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed."""
        ...


class SystemClock:
    """The machine's clock: ``time.time`` and ``time.sleep``."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


SYSTEM_CLOCK = SystemClock()

ExecutorFactory: TypeAlias = Callable[[int], futures.Executor]
"""Makes the executor of one apply, given how many calls it may run at once."""


def thread_pool(workers: int) -> futures.Executor:
    """A pool of ``workers`` threads for apply's calls (they wait on the network, not the CPU)."""
    return futures.ThreadPoolExecutor(workers, "quotactl-apply")
