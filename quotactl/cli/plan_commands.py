"""``plan`` and ``apply``: diff config against live, and make live match it.

The reference is docs/plan-and-apply.md.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.exitcodes import ExitCode
from quotactl.cli.options import PathsArgument
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.aws.backend import AwsBackend
    from quotactl.cli.runtime import Runtime
    from quotactl.core.plan import Plan


class PlanFormat(enum.StrEnum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


def plan(
    ctx: typer.Context,
    paths: PathsArgument = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Also save the plan (JSON) for `apply --plan FILE`."),
    ] = None,
    detailed_exitcode: Annotated[
        bool,
        typer.Option(
            "--detailed-exitcode", help="Exit 0 when there are no changes, 2 when there are."
        ),
    ] = False,
    output: Annotated[
        PlanFormat, typer.Option("-o", "--output", help="text, json, or markdown (PR comment).")
    ] = PlanFormat.TEXT,
) -> None:
    """Show what apply would change, with the runtime impact on live jobs.

    Nothing is changed. Exit code 0 (1 on error); with --detailed-exitcode, 2 when the plan
    has changes.
    """
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import load, open_backend, report_calls
    from quotactl.core.diff import make_plan

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    backend = open_backend(runtime, desired.region)
    the_plan = make_plan(desired, backend)
    report_calls(runtime, backend)
    _show(runtime, the_plan, output)
    if out is not None:
        _save(the_plan, out)
        runtime.notice(
            f"Saved the plan to {out}; apply exactly it with: quotactl apply --plan {out}"
        )
    if detailed_exitcode and not the_plan.empty:
        raise typer.Exit(ExitCode.CHANGES_PRESENT)


def apply(
    ctx: typer.Context,
    paths: PathsArgument = None,
    plan_file: Annotated[
        Path | None,
        typer.Option("--plan", help="Apply this saved plan (refused if live changed since)."),
    ] = None,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Do not ask for confirmation.")
    ] = False,
    allow_delete: Annotated[
        bool, typer.Option("--allow-delete", help="Allow deleting and replacing resources.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and stop (changes nothing).")
    ] = False,
    allow_disruption: Annotated[
        bool,
        typer.Option(
            "--allow-disruption",
            help="Allow changes that terminate or expose to preemption jobs that hold instances.",
        ),
    ] = False,
    max_disruption: Annotated[
        int | None,
        typer.Option(
            "--max-disruption",
            metavar="N",
            help="Allow the plan if it disrupts at most N jobs that hold instances.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Make live resources match the config (or a saved plan).

    Shows the plan first and asks for 'yes' on a terminal. Deletes and replaces need
    --allow-delete; changes that would terminate or expose to preemption SCHEDULED, STARTING
    or RUNNING jobs (judged against the jobs live now) need --allow-disruption or
    --max-disruption N. Waits for every resource to become VALID.
    """
    from quotactl.cli.app import runtime_of
    from quotactl.cli.stack import confirm, guard_account, load, open_backend, report_calls
    from quotactl.core import disruption
    from quotactl.core.apply import apply as run_plan
    from quotactl.core.diff import make_plan
    from quotactl.core.plan import DeleteNotAllowedError
    from quotactl.errors import QuotactlError
    from quotactl.render.progress import ProgressHooks

    runtime = runtime_of(ctx)
    if plan_file is not None and paths:
        raise UsageError("give config PATHs or --plan FILE, not both")
    if max_disruption is not None and max_disruption < 0:
        raise UsageError(f"--max-disruption must be 0 or more, not {max_disruption}")
    if plan_file is not None:
        saved = _read_plan(plan_file)
        if not dry_run:
            guard_account(runtime, saved.account_id, saved.region)
        backend = open_backend(runtime, saved.region)
        the_plan = _unless_stale(saved, backend, plan_file)
    else:
        desired = load(runtime, paths).desired
        if not dry_run:
            guard_account(runtime, desired.account_id, desired.region)
        backend = open_backend(runtime, desired.region)
        the_plan = make_plan(desired, backend)
    _show(runtime, the_plan, PlanFormat.TEXT)
    if the_plan.empty or dry_run:
        if dry_run and not the_plan.empty:
            runtime.notice("Dry run: nothing was changed.")
        return
    if the_plan.destructive and not allow_delete:
        names = ", ".join(c.address for c in the_plan.destructive)
        raise DeleteNotAllowedError(
            f"the plan deletes or replaces {len(the_plan.destructive)} resource(s) ({names}); "
            "nothing was changed",
            hint="review the plan (and its runtime impact), then re-run with --allow-delete",
        )
    disruption.guard(the_plan, backend, allow=allow_disruption, max_jobs=max_disruption)
    confirm(runtime, "Apply this plan?", auto_approve=auto_approve)
    hooks = ProgressHooks(runtime.console())
    try:
        result = run_plan(the_plan, backend, hooks)
    except KeyboardInterrupt:
        hooks.close()
        print(
            "quotactl: apply interrupted; calls already sent may still complete. "
            "Run apply again: it picks up where this one stopped.",
            file=runtime.stderr,
        )
        raise
    finally:
        hooks.close()
    report_calls(runtime, backend)
    if not result.ok:
        raise QuotactlError(
            f"{len(result.failed)} change(s) failed and {len(result.skipped)} were skipped",
            code="apply-failed",
            hint="fix the cause above and run apply again: it picks up where this one stopped",
        )


def _read_plan(path: Path) -> Plan:
    from quotactl.core.plan import PlanError
    from quotactl.core.planfile import from_document
    from quotactl.errors import NotFoundError

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise NotFoundError(f"no plan file {path}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read plan file {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:  # not UTF-8, not JSON: the same verdict as a JSON non-plan
        raise PlanError(
            f"{path} is not a quotactl plan file: {exc}",
            code="plan-invalid",
            hint="write one with `quotactl plan --out FILE`",
        ) from exc
    return from_document(document)


def _unless_stale(saved: Plan, backend: AwsBackend, path: Path) -> Plan:
    """The saved plan, if live still matches the state it was computed from."""
    from quotactl.core.fingerprint import fingerprint
    from quotactl.core.observed import Ref
    from quotactl.core.plan import StalePlanError

    queues = [Ref.parse(a).name for a in saved.scope if a.startswith("queue.")]
    observed = backend.observe(saved.stack, queues)
    if fingerprint(observed, saved.stack, saved.scope) != saved.fingerprint:
        raise StalePlanError(
            f"the saved plan {path} is stale: live resources changed after it was made; "
            "nothing was changed",
            hint="run `quotactl plan --out FILE` again and review the new plan",
        )
    return saved


def _show(runtime: Runtime, the_plan: Plan, output: PlanFormat) -> None:
    from quotactl.render.plan import plan_json, plan_markdown, print_plan

    if output is PlanFormat.JSON:
        runtime.stdout.write(plan_json(the_plan))
    elif output is PlanFormat.MARKDOWN:
        runtime.stdout.write(plan_markdown(the_plan))
    else:
        print_plan(the_plan, runtime.console())


def _save(the_plan: Plan, path: Path) -> None:
    from quotactl.render.plan import plan_json

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(plan_json(the_plan), encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot save the plan to {path}: {exc.strerror or exc}",
            hint="give --out a file path in a writable directory",
        ) from exc


def register(app: typer.Typer) -> None:
    app.command()(plan)
    app.command()(apply)
