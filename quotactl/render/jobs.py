"""Text views of the job commands: the ``jobs`` table, one job, ``why``, a dry-run preview."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.durations import human_duration
from quotactl.core.estimate.answers import Explained, JobRows, Preview
from quotactl.core.jobs.reprioritise import PriorityChange
from quotactl.core.jobs.results import Cancelled, JobDescription, SubmitResult
from quotactl.core.outputs import Output
from quotactl.core.states import JobStatus
from quotactl.render.console import print_trimmed
from quotactl.render.eta import basis_words, cost_line, eta_cell, eta_sentence
from quotactl.render.job_table import Column, StreamTable
from quotactl.render.jobs_json import cancel_errors, iso, submit_warnings
from quotactl.render.symbols import DASH
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from rich.console import Console
    from rich.table import Table

    from quotactl.core.estimate import Estimates, Eta
    from quotactl.core.jobs.placement import Placement
    from quotactl.core.jobs.records import JobDetail
    from quotactl.core.jobs.why import Preemption, Why
    from quotactl.core.resources.observed import LiveJob

REASON_WIDTH = 60


def instances(job: LiveJob) -> str:
    if not job.instances:
        return DASH
    return ", ".join(f"{n} x {t}" for t, n in sorted(job.instances.items()))


def age(job: LiveJob, now: float) -> str:
    if job.created_at is None:
        return DASH
    return human_duration(max(0.0, now - job.created_at))


def _short(text: str | None, width: int = REASON_WIDTH) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 3] + "..."


def job_columns(
    now: Callable[[], float], *, wide: bool = False, estimates: Estimates | None = None
) -> list[Column]:
    """The ``jobs`` table's columns: what ListServiceJobs gives, with ``wide`` what only
    DescribeServiceJob has (priority, preemptions), and with ``estimates`` (``jobs --eta``)
    when each waiting job is expected to start. ``now``: the account's clock, for ages."""
    columns = [
        Column("NAME", lambda j: j.name),
        Column("JOB ID", lambda j: j.job_id),
        Column("QUEUE/SHARE", lambda j: f"{j.queue}/{j.share or DASH}"),
        Column("STATUS", lambda j: j.status.value),
        Column("INSTANCES", instances),
        Column("AGE", lambda j: age(j, now())),
        Column("REASON", lambda j: _short(j.status_reason)),
    ]
    if wide:
        columns.insert(4, Column("PRIO", lambda j: _number(j.priority), right=True))
        columns.insert(7, Column("PREEMPTED", lambda j: _number(j.preemptions), right=True))
    if estimates is not None:
        columns.append(Column("ETA", lambda j: eta_cell(estimates.eta(j.job_id), now())))
    return columns


def _number(value: int | None) -> str:
    return DASH if value is None else str(value)


@view(JobRows, Output.TEXT)
def show_jobs(rows: JobRows, screen: Screen) -> None:
    """``jobs``: the table, each row written as the listing reads it."""
    print_jobs(screen.console(), rows.jobs, rows.clock, wide=rows.wide, estimates=rows.estimates)


def print_jobs(
    console: Console,
    jobs: Iterable[LiveJob],
    now: float | Callable[[], float],
    *,
    wide: bool = False,
    columns: Sequence[Column] | None = None,
    estimates: Estimates | None = None,
) -> None:
    """The ``jobs`` table, each row written as it arrives (``jobs`` may be a live listing),
    then the count. ``now``: the account's clock, or a function giving it once the first job
    is in (a listing learns it from its first answer). With ``estimates`` (``jobs --eta``), an
    ETA column and how it was made."""
    clock = now if callable(now) else (lambda: now)
    table = StreamTable(console, columns or job_columns(clock, wide=wide, estimates=estimates))
    table.write(jobs)
    if not table.count:
        console.print("No service jobs match.")
        return
    console.print(f"{table.count} job{'s' if table.count != 1 else ''}")
    if estimates is not None:
        console.print(f"ETA: {cost_line(estimates)}", highlight=False)


def print_table(console: Console, table: Table) -> None:
    """On a terminal, fit it; into a pipe or file, never cut a value short (kubectl's way).
    No line ends in the spaces that pad the last column."""
    width = console.width
    if not console.is_terminal:
        console.width = max(width, _natural_width(console, table))
    try:
        print_trimmed(console, table, crop=console.is_terminal)
    finally:
        console.width = width


def _natural_width(console: Console, table: Table) -> int:
    measured = table.__rich_measure__(console, console.options.update_width(100_000))
    return int(measured.maximum)


@view(JobDescription, Output.TEXT)
def show_job(found: JobDescription, screen: Screen) -> None:
    """``job describe``."""
    print_job(screen.console(), found.detail, found.preemptions, found.training_job, found.now)


def print_job(
    console: Console,
    detail: JobDetail,
    preemptions: Sequence[Preemption],
    training_job: dict[str, object] | None,
    now: float,
) -> None:
    job = detail.job
    rows = [
        ("Name", job.name),
        ("Job ID", job.job_id),
        ("ARN", job.job_arn),
        ("Queue", job.queue),
        ("Share", job.share or DASH),
        ("Status", job.status.value + (" (terminated)" if job.is_terminated else "")),
        ("Reason", job.status_reason or DASH),
        ("Priority", DASH if job.priority is None else str(job.priority)),
        ("Instances", instances(job)),
        ("Created", f"{iso(job.created_at) or DASH} ({age(job, now)} ago)"),
        ("Started", iso(job.started_at) or DASH),
        ("Stopped", iso(job.stopped_at) or DASH),
        ("Attempts", str(job.attempts or 0)),
        ("Preempted", str(job.preemptions or 0)),
    ]
    if job.preemption_retries is not None:
        rows.append(("Preemption retries", str(job.preemption_retries)))
    if training_job is not None:
        status = (
            f"{training_job.get('status') or DASH} / {training_job.get('secondary_status') or DASH}"
        )
        rows.append(("Training job", f"{training_job.get('name')}  {status}"))
    if detail.tags:
        rows.append(("Tags", ", ".join(f"{k}={v}" for k, v in sorted(detail.tags.items()))))
    from rich.table import Table  # the job list does without it (``StreamTable``)

    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    print_table(console, table)
    if preemptions:
        console.print()
        _print_preemptions(console, preemptions)


def _print_preemptions(console: Console, preemptions: Sequence[Preemption]) -> None:
    console.print("[bold]Preemptions[/bold] (newest first)")
    for p in preemptions:
        by = p.by_job_name or p.by_job or "a job that could not be found"
        if p.kind == "reclaim":
            who = f"reclaimed by share {p.by_share or '?'} for {by}"
        else:
            who = f"by higher-priority {by} of its own share"
        console.print(f"  {iso(p.at) or DASH}  {p.kind:<8}  {who}")


@view(Explained, Output.TEXT)
def show_why(answer: Explained, screen: Screen) -> None:
    """``job why``."""
    print_why(screen.console(), answer.why, answer.estimates, answer.now)


def print_why(
    console: Console, why: Why, estimates: Estimates | None = None, now: float = 0.0
) -> None:
    """``job why``; with ``estimates``, when a waiting job is expected to start."""
    job = why.job
    console.print(f"[bold]{job.name}[/bold] ({job.job_id}) is {job.status.value}.")
    wait = why.wait
    eta = estimates.eta(job.job_id) if estimates is not None else None
    if wait is not None:
        console.print(f"  wait: {wait.code} \u2013 {wait.message}")
        if eta is not None and estimates is not None:
            _print_eta(console, eta, estimates, now, job.share, job.queue)
        if wait.ahead:
            console.print(f"  ahead of it: {_named(wait.ahead, why.names)}")
        if wait.status_reason:
            console.print(f"  AWS statusReason: {wait.status_reason}")
    elif job.status is JobStatus.RUNNING:
        console.print("  It is running: nothing holds it back.")
    elif job.is_final:
        console.print(f"  It has ended{': ' + job.status_reason if job.status_reason else '.'}")
    if why.preemptions:
        _print_preemptions(console, why.preemptions)
    elif not job.preemptions:
        console.print("  It has never been preempted.")


def _print_eta(
    console: Console,
    eta: Eta,
    estimates: Estimates,
    now: float,
    share: str | None,
    queue: str,
) -> None:
    console.print(f"  eta: {eta_sentence(eta, now, share, queue)}", highlight=False)
    console.print(f"    ({basis_words(eta)}; {cost_line(estimates)})", highlight=False)


def _named(ids: Sequence[str], names: Mapping[str, str]) -> str:
    return ", ".join(f"{names[i]} ({i})" if i in names else i for i in ids)


@view(Preview, Output.TEXT)
def show_preview(found: Preview, screen: Screen) -> None:
    """``submit --dry-run``."""
    print_placement(
        screen.console(),
        found.placement,
        queue=found.queue,
        share=found.share,
        names=found.names,
        placements=found.placements,
        estimates=found.estimates,
        ids=found.ids,
        now=found.now,
    )


def print_placement(
    console: Console,
    placement: Placement,
    *,
    queue: str,
    share: str,
    names: Mapping[str, str] | None = None,
    placements: Sequence[Placement] = (),
    estimates: Estimates | None = None,
    ids: Sequence[str] = (),
    now: float = 0.0,
) -> None:
    """``names``: job names by ID, for the victims and the jobs ahead; ``placements``: one
    per job of a ``--count`` (each job is previewed, the later ones behind the earlier);
    ``estimates`` of the previewed jobs, by their ``ids`` (in the order of ``placements``)."""
    console.print(f"Dry run: nothing was submitted to {queue}/{share}.")
    several = len(placements) > 1
    shown = 0
    for index, one in enumerate(placements if several else [placement], start=1):
        label = f"job {index} of {len(placements)}: " if several else ""
        _print_one(console, one, names or {}, label)
        eta = estimates.eta(ids[index - 1]) if estimates and index <= len(ids) else None
        if eta is not None and one.placement in ("wait", "preempt", "own", "borrow"):
            console.print(f"  eta: {eta_sentence(eta, now, share, queue)}", highlight=False)
            shown += 1
    if estimates is not None and shown:
        console.print(f"  ({cost_line(estimates)})", highlight=False)


def _print_one(
    console: Console, placement: Placement, known: Mapping[str, str], label: str
) -> None:
    console.print(
        f"[bold]{label}placement: {placement.placement}[/bold] \u2013 {placement.message}"
    )
    if placement.lenders:
        console.print(f"  lenders: {', '.join(placement.lenders)}")
    for victim in placement.victims:
        console.print(
            f"  would preempt {_named([victim.job_id], known)} of share {victim.share} "
            f"({victim.kind})"
        )
    for victim in placement.knock_on:
        console.print(
            f"  and then {_named([victim.by_job], known)} would preempt "
            f"{_named([victim.job_id], known)} of share {victim.share} ({victim.kind})"
        )
    if placement.ahead:
        console.print(f"  ahead of it: {_named(placement.ahead, known)}")
    if placement.status_reason:
        console.print(f"  AWS statusReason: {placement.status_reason}")


def _jobs_count(n: int) -> str:
    return f"{n} job{'s' if n != 1 else ''}"


@view(PriorityChange, Output.TEXT)
def show_priority(change: PriorityChange, screen: Screen) -> None:
    """``job priority``."""
    print_priority(screen.console(), change)


def print_priority(console: Console, change: PriorityChange) -> None:
    before = DASH if change.before is None else str(change.before)
    console.print(f"priority of {change.name} ({change.job_id}): {before} \u2192 {change.after}")
    in_share = [v for v in change.preempts if v.kind == "in-share"]
    if in_share:
        console.print(f"This triggers in-share preemption of {_jobs_count(len(in_share))}:")
    elif change.preempts:
        console.print(f"This triggers preemption of {_jobs_count(len(change.preempts))}:")
    for v in change.preempts:
        by_id = v.by_job.split("/")[0]
        by = "it" if by_id == change.job_id else _named([by_id], change.names)
        console.print(
            f"  {_named([v.job_id], change.names)} of share {v.share} ({v.kind}, for {by})"
        )
    if not change.preempts:
        console.print("No preemption follows on the next scheduling pass.")
    if change.starts:
        console.print("The job starts on the next scheduling pass.")


@view(Cancelled, Output.TEXT)
def show_cancelled(result: Cancelled, screen: Screen) -> None:
    """``job cancel``: a line per job cancelled or already finished; errors on stderr."""
    names = {d.job.job_id: d.job.name for d in result.details}
    for job_id in result.done:
        screen.line(f"cancelled {names[job_id]} ({job_id})")
    for d in result.finished:
        screen.line(f"{d.job.name} ({d.job.job_id}) had already finished: {d.job.status.value}")
    cancel_errors(result, screen)


@view(SubmitResult, Output.TEXT)
def show_submitted(result: SubmitResult, screen: Screen) -> None:
    """``submit``: its warnings on stderr, then a line per job submitted."""
    submit_warnings(result, screen)
    how = " through the SageMaker SDK's TrainingQueue" if result.trainer else ""
    for job in result.submitted:
        screen.line(f"submitted {job.name} ({job.job_id}) to {job.queue}/{job.share}{how}")
