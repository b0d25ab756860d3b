"""``tune``: search changes to one queue's shares, replaying a trace for every candidate.

The search is ``quotactl.core.tune``; this module reads the trace once, picks the executor
(this process, a process pool or a Dask cluster) and hands each candidate's ``simulate``
result back in proposal order. Every candidate (and the current configuration) is replayed
with the configuration's schedule windows, budgets and aging in force, as ``simulate`` replays
it (``Governing``: the same start, cadence and disruption for all; ``--no-govern``: without
them): the search varies shares' settings, never the policies. ``tuned_comparison`` sets a
trial beside the current configuration exactly as ``simulate --compare`` does;
``tuned_recording`` replays both once more with the timeline recorder, for ``tune --report``'s
charts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.api.offline import Governing
from quotactl.core.engine import TIMING
from quotactl.errors import NotFoundError, TraceUnsorted, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from quotactl.core.engine import Timing
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule, RuleResult
    from quotactl.core.simulate import Comparison, TraceRow
    from quotactl.core.tune import Edit, Knob, Settings, Trial, TuneResult
    from quotactl.core.tune.run import TuneRun, WrittenConfig


@dataclass(frozen=True)
class TuneRequest:
    """One search asked for: its settings, the queue (None: the only one), what may vary,
    the teams left as they are, where candidates are simulated (workers or a cluster), the
    directory the best is written to, whether the best is replayed with timelines and how
    every replay applies the configuration's policies."""

    settings: Settings
    queue: str | None = None
    vary: tuple[Knob, ...] | None = None
    fixed: tuple[str, ...] = ()
    workers: int | None = None
    executor: str | None = None
    out: Path | None = None
    record: bool = False
    overrides: tuple[str, ...] = ()
    """Soft rules accepted as failing (``--override NAME``): they refuse no candidate."""
    governing: Governing = field(default_factory=Governing)
    """The schedule windows, budgets and aging kept in force in every replay (as simulate's
    ``--start``, ``--no-govern``, ``--govern-every``, ``--govern-allow-disruption``)."""


def tune_request(
    objective: str,
    vary: str,
    *,
    budget: int,
    seed: int,
    max_worse: float,
    queue: str | None = None,
    fixed: Sequence[str] = (),
    workers: int | None = None,
    executor: str | None = None,
    out: Path | None = None,
    report: Path | None = None,
    overrides: Sequence[str] = (),
    governing: Governing | None = None,
) -> TuneRequest:
    """``tune``'s options read and checked before the search: a ``usage`` error names a bad
    --objective or --vary, both --workers and --executor given, a bad --start or
    --govern-every; an --out that is no directory or cannot be written, or a --report that
    cannot be written is refused now. ``governing``'s start is fixed now (default: the next
    Monday 00:00 UTC), so every replay of the search starts at the same instant."""
    from quotactl.core.tune import Knob, Objective, Settings

    if workers is not None and executor is not None:
        raise UsageError("give --workers N or --executor dask://HOST:PORT, not both")
    try:
        goal = Objective(objective)
    except ValueError:
        raise UsageError(
            f"--objective {objective!r}: expected one of {', '.join(o.value for o in Objective)}"
        ) from None
    found = []
    for part in (p.strip() for p in vary.split(",")):
        try:
            found.append(Knob(part.replace("-", "_")))
        except ValueError:
            raise UsageError(
                f"--vary {vary!r}: {part!r} is not one of {', '.join(k.value for k in Knob)}"
            ) from None
    settings = Settings(objective=goal, budget=budget, seed=seed, max_worse=max_worse)
    knobs = tuple(dict.fromkeys(found))
    if out is not None:
        check_tuned_out(out)
    if report is not None:
        from quotactl.api.report_files import check_report_path

        check_report_path(report)
    return TuneRequest(
        settings,
        queue,
        knobs,
        tuple(fixed),
        workers,
        executor,
        out,
        record=report is not None,
        overrides=tuple(overrides),
        governing=(governing or Governing()).fixed(),
    )


def tune_and_write(
    desired: DesiredState,
    trace: Path,
    request: TuneRequest,
    *,
    paths: Sequence[Path] | None = None,
    rules: Sequence[Rule] = (),
    on_trial: Callable[[Trial, Trial], None] | None = None,
    notice: Callable[[str], None] | None = None,
    timing: Timing = TIMING,
) -> TuneRun:
    """``tune`` as its command shows it: the search, each proposal of the front with its
    changes, comparison and rules, the best written to the request's ``out`` (the
    configuration at ``paths``, default ``configs``) and, if it says ``record``, the best
    against the current with timelines (for ``--report``). ``notice`` hears that an unsorted
    trace is replayed sorted."""
    from pathlib import Path

    from quotactl.api.offline import sorted_notice
    from quotactl.api.rules import check_overrides
    from quotactl.core.tune.run import Proposal, TuneRun

    check_overrides(request.overrides, rules)
    if request.out is not None:  # before the search: not the configuration it reads
        check_tuned_out(request.out, paths or [Path("configs")])
    result = tune(
        desired,
        trace,
        request.settings,
        queue=request.queue,
        vary=request.vary,
        fixed=request.fixed,
        workers=request.workers,
        executor=request.executor,
        rules=rules,
        overrides=request.overrides,
        on_trial=on_trial,
        on_unsorted=sorted_notice(notice),
        timing=timing,
        governing=request.governing,
    )
    label = ", ".join(str(p) for p in paths) if paths else "configs"
    proposals = tuple(
        Proposal(
            t,
            tuned_edits(result, t),
            tuned_comparison(result, t, label=label),
            tuple(tuned_rules(rules, t, request.overrides)),
        )
        for t in result.proposals
    )
    best = result.best
    out, written = request.out, None
    if out is not None and best is not None:
        written = write_tuned(paths or [Path("configs")], best, out)
    recording = None
    if (
        request.record and best is not None
    ):  # the search recorded nothing: the best and the current again
        recording = tuned_recording(
            result, best, trace, label=label, timing=timing, governing=request.governing
        )
    return TuneRun(result, str(trace), proposals, out, written, recording)


def tune(
    desired: DesiredState,
    trace: Path,
    settings: Settings,
    *,
    queue: str | None = None,
    vary: Iterable[Knob] | None = None,
    fixed: Sequence[str] = (),
    workers: int | None = None,
    executor: str | None = None,
    rules: Sequence[Rule] = (),
    overrides: Sequence[str] = (),
    on_trial: Callable[[Trial, Trial], None] | None = None,
    on_unsorted: Callable[[str], None] | None = None,
    timing: Timing = TIMING,
    governing: Governing | None = None,
) -> TuneResult:
    """Search ``queue`` of ``desired`` (default: its only queue) for the best configuration on
    ``trace``; ``fixed`` teams stay as they are, and every soft and hard rule of ``rules``
    about that queue (or about everything) is a constraint, but for the soft ones named in
    ``overrides``. Every candidate is replayed with the configuration's schedule windows,
    budgets and aging in force as ``governing`` says (default: as ``simulate``, from the next
    Monday 00:00 UTC), a window's settings over the candidate's. Ctrl-C ends the search with
    what it found."""
    from quotactl.api.executors import executor as executor_for
    from quotactl.core.tune import Knob, RuleConstraints, Space, search

    name = tuned_queue(desired, queue)
    teams = {s.team for s in desired.shares if s.team}
    for team in fixed:
        if team not in teams:
            raise NotFoundError(
                f"--fix {team}: no team {team!r} in the configuration",
                hint=f"teams are {', '.join(sorted(teams))}" if teams else None,
            )
    space = Space.of(desired, name, tuple(Knob) if vary is None else vary, fixed)
    governed = (governing or Governing()).fixed()
    rows = read_rows(trace, on_unsorted)
    with executor_for(
        rows, str(trace), timing, workers=workers, address=executor, govern=governed.of
    ) as evaluate:
        constraints = RuleConstraints(rules, overrides, desired=desired, queue=name)
        return search(desired, space, settings, evaluate, constraints, on_trial)


def tuned_queue(desired: DesiredState, queue: str | None) -> str:
    """The queue to tune: ``queue``, or the configuration's only one."""
    names = [q.name for q in desired.queues]
    if queue is None:
        if len(names) == 1:
            return names[0]
        if not names:
            raise NotFoundError("the configuration has no queue to tune")
        raise UsageError(
            "the configuration has several queues: name one with --queue",
            hint=f"queues are {', '.join(names)}",
        )
    if queue not in names:
        raise NotFoundError(
            f"--queue {queue}: no queue {queue!r} in the configuration",
            hint=f"queues are {', '.join(names)}" if names else None,
        )
    return queue


def read_rows(trace: Path, on_unsorted: Callable[[str], None] | None = None) -> list[TraceRow]:
    """Every row of ``trace`` in submission order (one out of order is sorted, as simulate
    does, and ``on_unsorted`` hears why)."""
    from quotactl.core.simulate.ordering import sorted_trace
    from quotactl.core.simulate.reader import check_trace, read_here

    check_trace(trace)
    try:
        return list(read_here(trace))
    except TraceUnsorted as exc:
        if on_unsorted is not None:
            on_unsorted(exc.message)
    with sorted_trace(trace) as ordered:
        return list(read_here(ordered))


def tuned_edits(result: TuneResult, trial: Trial) -> tuple[Edit, ...]:
    """What ``trial`` changes against the current configuration, setting by setting."""
    from quotactl.core.tune import edits

    return edits(result.space, result.current, trial)


def tuned_rules(
    rules: Sequence[Rule], trial: Trial, overrides: Sequence[str] = ()
) -> list[RuleResult]:
    """Every rule's result on ``trial``'s configuration and its simulation."""
    from quotactl.core.tune import RuleConstraints

    return RuleConstraints(rules, overrides).judged(trial.desired, trial.result)


def tuned_comparison(result: TuneResult, trial: Trial, *, label: str) -> Comparison:
    """``trial`` against the current configuration, as ``simulate --compare`` reports it."""
    from quotactl.core.simulate import Replay, Side, compare, queue_models

    current = result.current
    before = Replay(Side(label, tuple(queue_models(current.desired))), current.result)
    after = Replay(
        Side(f"candidate {trial.index}", tuple(queue_models(trial.desired))), trial.result
    )
    return compare(before, after)


def tuned_recording(
    result: TuneResult,
    trial: Trial,
    trace: Path,
    *,
    label: str,
    timing: Timing = TIMING,
    governing: Governing | None = None,
) -> Comparison:
    """``tuned_comparison`` replayed once more, each side with a timeline (the charts of
    ``tune --report``): the search records nothing, so that no candidate pays for it. The
    replay is ``simulate``'s, with the policies applied as ``governing`` says (give the
    search's), so its figures are the search's."""
    from quotactl.core.simulate import Side, compare, queue_models, run_both
    from quotactl.core.simulate.ordering import sorted_trace

    governed = (governing or Governing()).fixed()
    current = result.current.desired
    before = Side(label, tuple(queue_models(current)), governance=governed.of(current))
    after = Side(
        f"candidate {trial.index}",
        tuple(queue_models(trial.desired)),
        governance=governed.of(trial.desired),
    )
    try:
        replays = run_both(before, after, trace, record=True, timing=timing)
    except TraceUnsorted:
        with sorted_trace(trace) as ordered:
            replays = run_both(before, after, ordered, record=True, timing=timing)
    return compare(*replays)


def check_tuned_out(out: Path, paths: Sequence[Path] = ()) -> None:
    """Refuse, before the search starts, an ``--out`` that is no directory, that cannot be
    written, or that is (or is inside) the configuration read from ``paths`` (if given)."""
    from quotactl.config.edit import check_out, check_out_apart, check_writable

    check_out(out)
    if paths:
        check_out_apart(out, paths)
    check_writable(out)


def write_tuned(paths: Sequence[Path], trial: Trial, out: Path) -> WrittenConfig:
    """The configuration at ``paths`` written to ``out`` with ``trial``'s share settings, in
    the same layout, comments and formatting kept."""
    from quotactl.config.edit import write_changed

    return write_changed(paths, trial.desired, out)
