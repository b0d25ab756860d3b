"""``simulate`` and ``trace generate``: what-if replays of a job trace against a config (SPEC §6).

Both run offline: no emulator state, no API call. A large trace file is parsed in a second
process while this one simulates (``trace_rows``): the simulation is CPU-bound and single
threaded, and parsing is a fifth of the work, so on a machine with two cores it comes free.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from quotactl.cli.options import PathsArgument
from quotactl.errors import NotFoundError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from multiprocessing.connection import Connection

    from quotactl.core.engine import QueueModel
    from quotactl.core.model import DesiredState
    from quotactl.core.simulate import TraceRow

PARALLEL_BYTES = 4 * 2**20
"""Traces at least this big are parsed in a worker process (starting one costs ~60 ms)."""
BATCH = 1000
"""Rows per message from the worker (unpickling costs ~0.2 us a row at this size)."""


class OutputFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"


class Baseline(enum.StrEnum):
    RESERVE = "reserve"


trace_app = typer.Typer(
    name="trace",
    help="Job traces for `quotactl simulate`: generate a synthetic one for a config.",
    no_args_is_help=True,
)


def simulate(
    ctx: typer.Context,
    trace: Annotated[
        Path,
        typer.Option(
            "--trace",
            help="The jobs to replay: CSV with a header, or JSON Lines (SPEC §6).",
            show_default=False,
        ),
    ],
    paths: PathsArgument = None,
    baseline: Annotated[
        Baseline | None,
        typer.Option(
            "--baseline",
            help="Also run the trace with every share RESERVE and report the difference.",
        ),
    ] = None,
    output: Annotated[
        OutputFormat, typer.Option("-o", "--output", help="Report as text or JSON.")
    ] = OutputFormat.TEXT,
) -> None:
    """Replay a job trace against the config offline: waits, borrowing, lending, preemption.

    The trace runs on a virtual clock through the same scheduling engine as the emulator, with
    no emulator state and no API call. Per share: jobs done, wait (first start - submit) mean,
    p50 and p95, instance-hours own, borrowed and lent, preemptions and the work they
    discarded; per queue: utilisation of claimed capacity.
    """
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load
    from quotactl.core.model import Strategy
    from quotactl.core.simulate import compare, summarise
    from quotactl.core.simulate import simulate as replay
    from quotactl.render.simulate import print_simulation, simulation_json

    runtime = runtime_of(ctx)
    queues = queue_models(load(runtime, paths).desired)
    name = str(trace)
    result = summarise(replay(queues, trace_rows(trace), name))
    comparison = None
    if baseline is Baseline.RESERVE:
        reserved = [q.with_strategy(Strategy.RESERVE) for q in queues]
        comparison = compare(result, summarise(replay(reserved, trace_rows(trace), name)))
    if output is OutputFormat.JSON:
        print(simulation_json(result, comparison, trace=name), file=runtime.stdout)
    else:
        print_simulation(runtime.console(), result, comparison, trace=name)


@trace_app.command("generate")
def generate(
    ctx: typer.Context,
    jobs: Annotated[
        int, typer.Option("--jobs", min=1, help="How many jobs to write.", show_default=False)
    ],
    paths: PathsArgument = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same trace.")] = 1,
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of stdout.")] = None,
) -> None:
    """Write a synthetic trace for the config's enabled shares (CSV, in submission order).

    Each share gets its own load (0.2-1.2 of its limit), arrivals that follow a working week,
    job sizes that fit it, log-normal durations and a few priorities; the model is documented
    in quotactl/core/simulate/generate.py. The trace is streamed, so a million jobs is fine.
    """
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load
    from quotactl.core.simulate import generate_trace, human_duration, workloads, write_trace

    runtime = runtime_of(ctx)
    queues = [q for q in queue_models(load(runtime, paths).desired) if _has_jobs(q)]
    if not queues:
        raise QuotactlError(
            "the configuration has no enabled quota share to generate jobs for",
            code="nothing-to-generate",
        )
    last = [0.0]

    def rows() -> Iterator[TraceRow]:
        for row in generate_trace(queues, jobs, seed):
            last[0] = row[0]
            yield row

    if out is None:
        written = write_trace(rows(), runtime.stdout)
    else:
        with _open_for_writing(out) as stream:
            written = write_trace(rows(), stream)
    span = human_duration(last[0])
    where = str(out) if out else "stdout"
    runtime.notice(f"quotactl: wrote {written:,} jobs over {span} to {where}")
    for w in workloads(queues, seed):
        runtime.notice(
            f"  {w.queue}/{w.share}: load {w.load:.2f} of its limit,"
            f" {w.jobs_per_hour:.1f} jobs/h on average, busiest at {w.peak_hour:04.1f} h"
        )


def queue_models(desired: DesiredState) -> list[QueueModel]:
    """Every queue of the config as the engine sees it; a disabled queue or environment takes
    no jobs, so its shares are marked disabled (trace rows for them are errors)."""
    from dataclasses import replace

    from quotactl.core.engine import QueueModel

    environments = {e.name: e for e in desired.environments}
    models = []
    for spec in desired.queues:
        model = QueueModel.from_desired(desired, spec.name)
        env = environments.get(spec.environment)
        if not spec.enabled or env is None or not env.enabled:
            model = replace(model, shares=tuple(replace(s, enabled=False) for s in model.shares))
        models.append(model)
    return models


def trace_rows(path: Path) -> Iterator[TraceRow]:
    """The rows of a trace file, streamed; a big one is parsed by a worker process."""
    if not path.is_file():
        raise NotFoundError(
            f"trace file {path} not found",
            hint="make one with: quotactl trace generate --jobs N --out FILE",
        )
    if path.stat().st_size < PARALLEL_BYTES or (os.cpu_count() or 1) < 2 or not _can_spawn():
        return _read_here(path)
    return _read_in_worker(path)


def _can_spawn() -> bool:
    """Can a spawned process import this one's ``__main__`` (not so for ``python -c``/stdin)?"""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return main is not None  # python -m ...: imported by name
    file = getattr(main, "__file__", None)
    return file is not None and Path(file).is_file()


def _read_here(path: Path) -> Iterator[TraceRow]:
    from quotactl.core.simulate import read_trace

    with path.open(encoding="utf-8", newline="") as lines:
        try:
            yield from read_trace(lines, str(path))
        except UnicodeDecodeError as exc:
            raise _not_text(path, exc) from None


def _read_in_worker(path: Path) -> Iterator[TraceRow]:
    import multiprocessing

    from quotactl.core.simulate import TraceError

    context = multiprocessing.get_context("spawn")  # no fork: safe whatever the parent runs
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_parse_worker, args=(str(path), sender), daemon=True)
    worker.start()
    sender.close()
    received = False
    try:
        while True:
            try:
                message = receiver.recv()
            except EOFError:
                if not received:  # the worker never ran (spawn could not start it): read here
                    yield from _read_here(path)
                    return
                raise QuotactlError(
                    f"the reader of {path} stopped unexpectedly", code="trace-invalid"
                ) from None
            received = True
            if message is None:
                return
            if isinstance(message, tuple):
                raise TraceError(message[0], hint=message[1])
            yield from message
    finally:
        receiver.close()
        if worker.is_alive():
            worker.terminate()
        worker.join()


def _parse_worker(path: str, sender: Connection) -> None:
    """Worker process: parse the trace and send rows in batches; an error ends the stream."""
    from quotactl.core.simulate import TraceError, read_trace

    try:
        with open(path, encoding="utf-8", newline="") as lines:
            batch: list[TraceRow] = []
            for row in read_trace(lines, path):
                batch.append(row)
                if len(batch) == BATCH:
                    sender.send(batch)
                    batch = []
            sender.send(batch)
        sender.send(None)
    except TraceError as exc:
        sender.send((exc.message, exc.hint))
    except UnicodeDecodeError as exc:
        error = _not_text(Path(path), exc)
        sender.send((error.message, error.hint))
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the simulation stopped reading (an error of its own, or ^C)
    finally:
        sender.close()


def _not_text(path: Path, exc: UnicodeDecodeError) -> QuotactlError:
    from quotactl.core.simulate import TraceError

    return TraceError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")


def _open_for_writing(path: Path) -> TextIO:
    try:
        return path.open("w", encoding="utf-8", newline="")
    except OSError as exc:
        raise QuotactlError(f"cannot write {path}: {exc.strerror}", code="io-error") from None


def _has_jobs(queue: QueueModel) -> bool:
    return any(s.enabled and any(n > 0 for n in s.limits.values()) for s in queue.shares)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
    app.add_typer(trace_app)
