"""Use cases that call no AWS: ``simulate`` (replay a trace against a configuration, or two),
``generate_trace`` (a synthetic one) and ``iam_policy`` (what quotactl's calls need)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from quotactl.core.engine import TIMING
from quotactl.core.files import replacing
from quotactl.core.simulate.written import GeneratedTrace
from quotactl.errors import NotFoundError, NothingToGenerateError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator, Sequence
    from datetime import datetime
    from typing import TextIO

    from quotactl.core.engine import QueueModel, Timing
    from quotactl.core.iam import PolicyDocument
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule
    from quotactl.core.simulate import (
        Comparison,
        SimulationResult,
        TraceRow,
    )
    from quotactl.core.simulate.governed import Governance
    from quotactl.core.simulate.judged import JudgedComparison, JudgedSimulation

T = TypeVar("T")


@dataclass(frozen=True)
class Governing:
    """How ``simulate`` applies a configuration's schedules, budgets and aging: ``start`` is
    the instant of the trace's second 0 (an instant or ISO 8601 text; None: the next Monday
    00:00 UTC), ``every`` the governor's cadence in seconds, ``enabled`` False for
    ``--no-govern``, ``allow_disruption`` for ``--govern-allow-disruption``."""

    start: datetime | str | None = None
    every: float = 300.0
    enabled: bool = True
    allow_disruption: bool = False

    def of(self, desired: DesiredState) -> Governance | None:
        """The governance of a replay against ``desired`` (None: it has no policy, or
        ``--no-govern``)."""
        from datetime import UTC, datetime

        from quotactl.api.stack import instant
        from quotactl.core.simulate.governed import Governance, governs, next_monday

        if not self.enabled or not governs(desired):
            return None
        if self.every <= 0:
            raise UsageError(
                "--govern-every must be longer than 0s", hint="the default is 5m, as govern's"
            )
        start = next_monday(datetime.now(UTC)) if self.start is None else instant(self.start)
        return Governance(desired, start, self.every, self.allow_disruption)

    def fixed(self) -> Governing:
        """This governing with its start an instant (None: the next Monday 00:00 UTC, now)
        and its cadence checked, so that every replay of a search (``tune``'s candidates, on
        any executor) starts at the same instant."""
        from datetime import UTC, datetime

        from quotactl.api.stack import instant
        from quotactl.core.simulate.governed import next_monday

        if self.enabled and self.every <= 0:
            raise UsageError(
                "--govern-every must be longer than 0s", hint="the default is 5m, as govern's"
            )
        start = next_monday(datetime.now(UTC)) if self.start is None else instant(self.start)
        return replace(self, start=start)


NOT_GOVERNED = Governing(enabled=False)


def simulate(
    desired: DesiredState,
    trace: Path,
    *,
    on_unsorted: Callable[[str], None] | None = None,
    record: bool = False,
    timing: Timing = TIMING,
    horizon: float | None = None,
    governing: Governing | None = None,
) -> SimulationResult:
    """Replay the trace at ``trace`` against ``desired`` offline, on a virtual clock, to
    ``horizon`` seconds after the last submission at most (default 30 days). A trace out of
    submission order is replayed sorted (``on_unsorted`` hears why). With ``record`` the
    result carries a timeline (what ``simulate --report`` draws). The configuration's
    policies are applied as ``governing`` says (default: at the governor's cadence, from the
    next Monday 00:00 UTC)."""
    from quotactl.core.simulate import queue_models, run_one

    queues = tuple(queue_models(desired))
    until = _horizon(horizon)
    governance = (governing or Governing()).of(desired)
    return _in_order(
        trace,
        lambda path: run_one(
            queues, path, record=record, timing=timing, horizon=until, governance=governance
        ),
        on_unsorted,
    )


def simulate_compare(
    desired: DesiredState,
    trace: Path,
    *,
    label: str,
    other: tuple[str, DesiredState] | None = None,
    on_unsorted: Callable[[str], None] | None = None,
    record: bool = False,
    timing: Timing = TIMING,
    horizon: float | None = None,
    governing: Governing | None = None,
) -> Comparison:
    """Replay ``trace`` against ``desired`` (called ``label``) and against ``other`` (a name
    and a configuration; default: the same one with every share RESERVE), each to ``horizon``
    seconds after the last submission at most (default 30 days), and compare; with ``record``
    both results carry a timeline."""
    from quotactl.core.resources.desired import UNLIMITED, Strategy
    from quotactl.core.simulate import Side, compare, queue_models, run_both

    governing = governing or Governing()
    queues = tuple(queue_models(desired))
    if other is not None:
        reference = Side(other[0], tuple(queue_models(other[1])), governance=governing.of(other[1]))
    else:
        reserved = tuple(q.with_strategy(Strategy.RESERVE) for q in queues)
        every_reserve = replace(
            desired,
            shares=tuple(
                replace(s, strategy=Strategy.RESERVE, borrow_limit=UNLIMITED)
                for s in desired.shares
            ),
        )
        reference = Side(
            "every share RESERVE",
            reserved,
            override="RESERVE",
            governance=governing.of(every_reserve),
        )
    after_side = Side(label, queues, governance=governing.of(desired))
    until = _horizon(horizon)
    before, after = _in_order(
        trace,
        lambda path: run_both(
            reference, after_side, path, record=record, timing=timing, horizon=until
        ),
        on_unsorted,
    )
    return compare(before, after)


def simulate_judged(
    desired: DesiredState,
    trace: Path,
    *,
    paths: Sequence[Path] | None = None,
    other: Path | None = None,
    baseline: bool = False,
    rules: Sequence[Rule] = (),
    overrides: Sequence[str] = (),
    record: bool = False,
    notice: Callable[[str], None] | None = None,
    timing: Timing = TIMING,
    horizon: float | None = None,
    governing: Governing | None = None,
) -> JudgedSimulation | JudgedComparison:
    """``simulate`` as its command shows it: ``trace`` replayed against ``desired`` (the
    configuration at ``paths``) alone, or compared with the configuration at ``other`` (or,
    with ``baseline``, every share RESERVE), and the ``max_wait`` and ``max_preemptions``
    rules judged on ``desired``'s run; each replay ends ``horizon`` seconds after the last
    submission at most (default 30 days). ``notice`` hears the other configuration's warnings
    and that an unsorted trace is replayed sorted."""
    from quotactl.api.config import load
    from quotactl.api.rules import judge_simulation
    from quotactl.core.simulate.judged import JudgedComparison, JudgedSimulation

    label = ", ".join(str(p) for p in paths) if paths else "configs"
    unsorted = sorted_notice(notice)
    if other is None and not baseline:
        result = simulate(
            desired,
            trace,
            on_unsorted=unsorted,
            record=record,
            timing=timing,
            horizon=horizon,
            governing=governing,
        )
        judged = judge_simulation(rules, desired, result, overrides).results
        return JudgedSimulation(result, str(trace), label, judged)
    reference = None
    if other is not None:
        loaded = load([other])
        for warning in loaded.warnings:
            if notice is not None:
                notice(str(warning))
        reference = (str(other), loaded.desired)
    comparison = simulate_compare(
        desired,
        trace,
        label=label,
        other=reference,
        on_unsorted=unsorted,
        record=record,
        timing=timing,
        horizon=horizon,
        governing=governing,
    )
    judged = judge_simulation(rules, desired, comparison.after.result, overrides).results
    return JudgedComparison(comparison, str(trace), judged)


def _horizon(horizon: float | None) -> float:
    """A replay's horizon: ``horizon`` seconds after the last submission, default 30 days."""
    from quotactl.core.simulate.simulator import HORIZON

    if horizon is None:
        return HORIZON
    if horizon <= 0:
        raise UsageError(
            f"--horizon: {horizon:g} s is no time to replay in",
            hint="give a positive duration after the last submission, such as 30d",
        )
    return horizon


def sorted_notice(notice: Callable[[str], None] | None) -> Callable[[str], None]:
    """What ``on_unsorted`` tells ``notice``: the trace is replayed sorted, and why."""

    def unsorted(why: str) -> None:
        if notice is not None:
            notice(f"quotactl: {why}: replaying the trace sorted by submit_time")

    return unsorted


def _in_order(
    trace: Path, replay: Callable[[Path], T], on_unsorted: Callable[[str], None] | None
) -> T:
    """Replay ``trace``; one that is not in submission order is replayed sorted."""
    from quotactl.core.simulate.ordering import sorted_trace
    from quotactl.errors import TraceUnsorted

    try:
        return replay(trace)
    except TraceUnsorted as exc:
        if on_unsorted is not None:
            on_unsorted(exc.message)
    with sorted_trace(trace) as ordered:
        return replay(ordered)


def generate_trace(
    desired: DesiredState, jobs: int, out: TextIO | Path, *, seed: int = 1
) -> GeneratedTrace:
    """Write ``jobs`` rows of synthetic workload for the enabled shares of ``desired`` to
    ``out`` (a stream or a file path; CSV, in submission order, streamed)."""
    from quotactl.core.simulate import (
        generate_trace as rows_of,
        queue_models,
        workloads,
        write_trace,
    )

    queues = [q for q in queue_models(desired) if _has_jobs(q)]
    if not queues:
        raise NothingToGenerateError(
            "the configuration has no enabled quota share to generate jobs for"
        )
    last = [0.0]

    def rows() -> Iterator[TraceRow]:
        for row in rows_of(queues, jobs, seed):
            last[0] = row[0]
            yield row

    if isinstance(out, Path):
        with replacing(out, "trace file") as stream:
            written = write_trace(rows(), stream)
    else:
        written = write_trace(rows(), out)
    where = str(out) if isinstance(out, Path) else "stdout"
    return GeneratedTrace(written, last[0], workloads(queues, seed), where)


def _has_jobs(queue: QueueModel) -> bool:
    return any(s.enabled and any(n > 0 for n in s.limits.values()) for s in queue.shares)


def policy_commands(commands: Collection[str] | None) -> frozenset[str] | None:
    """``commands`` checked against the ones that call AWS (None: every command)."""
    from quotactl.aws.permissions import OFFLINE_COMMANDS, commands as calling

    if not commands:
        return None
    unknown = [c for c in commands if c not in calling()]
    if unknown:
        offline = [c for c in unknown if c in OFFLINE_COMMANDS]
        why = "makes no AWS call" if offline == unknown else "is not a command that calls AWS"
        raise UsageError(
            f"--command {unknown[0]!r} {why}",
            hint="choose from: " + ", ".join(sorted(calling())),
        )
    return frozenset(commands)


def iam_policy(
    *,
    region: str = "*",
    account: str = "*",
    read_only: bool = False,
    commands: Collection[str] | None = None,
    team: str | None = None,
    desired: DesiredState | None = None,
) -> PolicyDocument:
    """The least-privilege IAM policy document for quotactl's ``commands`` (default: all),
    derived from the calls each makes; ``read_only`` keeps the commands that change nothing.
    ``team`` (with the configuration's ``desired`` state): the policy for that team's
    training role instead, submitting only to its own shares at priorities up to its
    ``max_priority``, changing no share."""
    from quotactl.aws.permissions import policy_document, team_policy_document
    from quotactl.core.iam import PolicyDocument

    if team is not None:
        if read_only or commands:
            raise UsageError("--team takes neither --command nor --read-only")
        if desired is None:
            raise UsageError(
                "--team needs the configuration that names the team's shares",
                hint="give its PATH, or run where configs/ is",
            )
        shares = [(s.queue, s.name) for s in desired.shares if s.team == team]
        if not shares:
            names = sorted({s.team for s in desired.shares if s.team})
            raise NotFoundError(
                f"no team {team!r} with a share in this configuration",
                hint="its teams: " + (", ".join(names) or "none"),
            )
        spec = next((t for t in desired.teams if t.name == team), None)
        return PolicyDocument(
            team_policy_document(
                region=region,
                account=account,
                shares=shares,
                max_priority=spec.max_priority if spec else None,
            )
        )
    only = policy_commands(commands)
    return PolicyDocument(
        policy_document(region=region, account=account, read_only=read_only, only=only)
    )
