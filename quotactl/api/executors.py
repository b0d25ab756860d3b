"""Where tune's candidates are replayed: this process, a local process pool, or a Dask cluster.

An executor is called with a batch of configurations and returns their simulation results in
the batch's order, whatever order the workers finished in. Each holds the trace rows once per
worker (sent when the pool starts, or scattered to every Dask worker), so a batch ships only
the configurations: each one's queues and its governance (the schedule windows, budgets and
aging it keeps, the instant of the trace's second 0, the cadence), values a worker unpickles,
so every executor replays a candidate exactly as ``simulate`` does.

``dask.distributed`` is imported only here and only for ``--executor dask://HOST:PORT``; it is
the optional extra ``quotactl[dask]``. The workers must have quotactl installed (the same
version: they unpickle its values).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from quotactl.core.simulate import io
from quotactl.core.tune.replay import replay
from quotactl.errors import DaskMissingError, ExecutorError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.simulate.trace import TraceRow

    Evaluate = Callable[[Sequence[DesiredState]], list[SimulationResult]]
    Govern = Callable[[DesiredState], Governance | None]
    Job = tuple[tuple[QueueModel, ...], Governance | None]

DASK_SCHEME = "dask://"
INSTALL = "pip install 'quotactl[dask]'"

_ROWS: list[Any] = []
"""A pool worker's copy of the trace, its source name and the timing (set once at start)."""


def default_workers() -> int:
    """The core count (what ``--workers`` defaults to)."""
    return os.cpu_count() or 1


@contextmanager
def executor(
    rows: Sequence[TraceRow],
    source: str,
    timing: Timing,
    *,
    workers: int | None = None,
    address: str | None = None,
    govern: Govern | None = None,
) -> Iterator[Evaluate]:
    """An evaluate function over ``rows``: on Dask at ``address`` (``dask://HOST:PORT``), else
    on ``workers`` local processes (one: this process). ``govern`` gives each configuration's
    governance (None, or no ``govern``: replayed without policies)."""
    ship = _shipper(govern)
    if address is not None:
        with _dask(address, rows, source, timing) as run:
            yield lambda batch: run(ship(batch))
        return
    count = default_workers() if workers is None else workers
    if count <= 1 or not io.can_spawn():
        yield lambda batch: [replay(q, rows, source, timing, g) for q, g in ship(batch)]
        return
    with _pool(count, rows, source, timing) as run:
        yield lambda batch: run(ship(batch))


def _shipper(govern: Govern | None) -> Callable[[Sequence[DesiredState]], list[Job]]:
    """What a batch of configurations ships to the workers: each one's queues and governance
    (made here, once, so every executor replays the same values)."""
    from quotactl.core.simulate.queues import queue_models

    def ship(batch: Sequence[DesiredState]) -> list[Job]:
        return [(tuple(queue_models(d)), None if govern is None else govern(d)) for d in batch]

    return ship


@contextmanager
def _pool(
    workers: int, rows: Sequence[TraceRow], source: str, timing: Timing
) -> Iterator[Callable[[Sequence[Job]], list[SimulationResult]]]:
    import multiprocessing

    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_hold,
        initargs=(list(rows), source, timing),
    )
    try:
        yield lambda batch: list(pool.map(_replay_held, batch))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _hold(rows: list[TraceRow], source: str, timing: Timing) -> None:
    """Pool worker start-up: keep the trace for every replay this worker runs. Ctrl-C is the
    parent's to handle (it stops the search and shuts the pool down); a worker ignores it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _ROWS[:] = [rows, source, timing]


def _replay_held(job: Job) -> SimulationResult:
    rows, source, timing = _ROWS
    queues, governance = job
    return replay(queues, rows, source, timing, governance)


@contextmanager
def _dask(
    address: str, rows: Sequence[TraceRow], source: str, timing: Timing
) -> Iterator[Callable[[Sequence[Job]], list[SimulationResult]]]:
    if not address.startswith(DASK_SCHEME) or not address[len(DASK_SCHEME) :]:
        raise UsageError(
            f"--executor {address!r}: expected dask://HOST:PORT",
            hint="the address of a running Dask scheduler, e.g. dask://10.0.0.5:8786",
        )
    try:
        from distributed import Client
    except ImportError:
        raise DaskMissingError(
            "--executor dask:// needs dask.distributed, which is not installed",
            hint=f"install the optional extra: {INSTALL}",
        ) from None
    target = "tcp://" + address[len(DASK_SCHEME) :]
    try:
        client = Client(target, timeout="10s", set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise ExecutorError(
            f"cannot reach the Dask scheduler at {address}: {exc}",
            hint="start one with `dask scheduler` and workers with `dask worker HOST:PORT`",
        ) from None
    try:
        [held] = client.scatter([list(rows)], broadcast=True)  # type: ignore[no-untyped-call]

        def evaluate(batch: Sequence[Job]) -> list[SimulationResult]:
            futures = [
                client.submit(replay, queues, held, source, timing, governance, pure=False)
                for queues, governance in batch
            ]
            results: list[SimulationResult] = client.gather(futures)  # type: ignore[no-untyped-call]
            return results

        yield evaluate
    finally:
        client.close()  # type: ignore[no-untyped-call]
