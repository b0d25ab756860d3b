"""Running simulations of a trace file: one configuration, or two side by side.

``run_one`` replays a trace against one configuration. ``run_both`` replays the same trace
against two (``simulate --compare``, ``--baseline reserve``): with two cores and a trace big
enough to be worth a process, the ``before`` side runs in a spawned worker process while this
one runs ``after``; each parses the file itself (parsing in two places costs less than
shipping a million parsed rows between processes).

Rows for a share that takes jobs in one configuration but not the other (added, removed or
disabled) are skipped by the side that lacks it and counted; a share neither knows is the
usual ``trace-invalid`` error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING
from quotactl.core.simulate import io, reader
from quotactl.core.simulate.metrics import summarise
from quotactl.core.simulate.queues import routes
from quotactl.core.simulate.simulator import HORIZON, simulate
from quotactl.errors import InternalError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from multiprocessing.connection import Connection
    from pathlib import Path

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.core.simulate.trace import TraceRow


@dataclass(frozen=True)
class Side:
    """One configuration a comparison replays, and what the report calls it."""

    label: str
    queues: tuple[QueueModel, ...]
    override: str | None = None
    """``RESERVE`` when this side is the configuration with every share forced to RESERVE."""
    governance: Governance | None = None
    """The policies this side applies on the way (None: none)."""


@dataclass(frozen=True)
class Replay:
    """One side's result, and the trace rows it had no share for (by ``queue/share``)."""

    side: Side
    result: SimulationResult
    skipped: Mapping[str, int] = field(default_factory=dict)


def run_one(
    queues: Iterable[QueueModel],
    path: Path,
    *,
    record: bool = False,
    timing: Timing = TIMING,
    horizon: float = HORIZON,
    governance: Governance | None = None,
) -> SimulationResult:
    """Replay the trace at ``path`` against one configuration (``record``: with a timeline;
    ``governance``: its policies applied) to ``horizon`` seconds after its last submission at
    most."""
    rows = reader.trace_rows(path)
    totals = simulate(
        tuple(queues),
        rows,
        str(path),
        timing,
        record=record,
        horizon=horizon,
        governance=governance,
    )
    return summarise(totals)


def run_both(
    before: Side,
    after: Side,
    path: Path,
    *,
    record: bool = False,
    timing: Timing = TIMING,
    horizon: float = HORIZON,
) -> tuple[Replay, Replay]:
    """Replay the trace at ``path`` against both sides (in parallel where it pays), each to
    ``horizon`` seconds after the last submission at most."""
    reader.check_trace(path)
    skip_before = _missing(before.queues, after.queues)
    skip_after = _missing(after.queues, before.queues)
    if io.size(path) < reader.PARALLEL_BYTES or not io.can_spawn():
        return (
            _replay(before, path, skip_before, True, record, timing, horizon),
            _replay(after, path, skip_after, True, record, timing, horizon),
        )
    with io.worker(_worker, before, str(path), skip_before, record, timing, horizon) as receiver:
        mine = _replay(after, path, skip_after, False, record, timing, horizon)
        try:
            message = receiver.recv()
        except EOFError:  # the worker never ran or died: do its share of the work here
            message = _replay(before, path, skip_before, False, record, timing, horizon)
        if isinstance(message, QuotactlError):
            raise message
        assert isinstance(message, Replay)
        return message, mine


def _replay(
    side: Side,
    path: Path,
    skip: Mapping[str, str],
    parallel_parse: bool,
    record: bool,
    timing: Timing,
    horizon: float,
) -> Replay:
    rows = reader.trace_rows(path) if parallel_parse else reader.read_here(path)
    skipped: Counter[str] = Counter()
    if skip:
        rows = _without(rows, skip, skipped)
    totals = simulate(
        side.queues,
        rows,
        str(path),
        timing,
        record=record,
        horizon=horizon,
        governance=side.governance,
    )
    result = summarise(totals)
    return Replay(side, result, dict(skipped))


def _worker(
    side: Side,
    path: str,
    skip: Mapping[str, str],
    record: bool,
    timing: Timing,
    horizon: float,
    sender: Connection,
) -> None:
    """Worker process: replay one side and send back its ``Replay`` (or its error)."""
    from pathlib import Path

    try:
        sender.send(_replay(side, Path(path), skip, False, record, timing, horizon))
    except QuotactlError as exc:
        sender.send(exc)  # whole: QuotactlError pickles its class and attributes
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    except Exception as exc:  # a bug: report it rather than leave the parent waiting
        sender.send(InternalError(f"the replay of {side.label} failed: {exc!r}"))
    finally:
        sender.close()


def _missing(here: tuple[QueueModel, ...], other: tuple[QueueModel, ...]) -> dict[str, str]:
    """Trace ``share`` values the other side takes and this one does not, to their name there."""
    mine = routes(here)
    return {ref: name for ref, name in routes(other).items() if ref not in mine}


def _without(
    rows: Iterable[TraceRow], skip: Mapping[str, str], skipped: Counter[str]
) -> Iterator[TraceRow]:
    for row in rows:
        name = skip.get(row[1])
        if name is None:
            yield row
        else:
            skipped[name] += 1
