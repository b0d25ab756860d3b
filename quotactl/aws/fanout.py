"""Reads on a thread pool whose results may start further reads (``quotactl.aws.live``).

The callbacks run on the calling thread, so what they collect needs no lock.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable


class Fanout:
    """Tasks on a pool whose callbacks (run on the calling thread) may spawn more tasks.

    Finished tasks are handled in the order they were spawned, so with one worker the calls
    are made in a fixed order (what botocore's Stubber needs). The first failure cancels what
    has not started and is raised from ``wait``.
    """

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self._pool = pool
        self._spawned = 0
        self._pending: dict[Future[Any], tuple[int, Callable[[Any], None]]] = {}

    def spawn(self, task: Callable[[], Any], then: Callable[[Any], None]) -> None:
        self._pending[self._pool.submit(task)] = (self._spawned, then)
        self._spawned += 1

    def wait(self) -> None:
        while self._pending:
            done, _ = wait(self._pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: self._pending[f][0]):
                _, then = self._pending.pop(future)
                try:
                    result = future.result()
                except BaseException:
                    self._cancel()
                    raise
                then(result)

    def _cancel(self) -> None:
        for future in self._pending:
            future.cancel()
        wait(list(self._pending))
        self._pending.clear()
