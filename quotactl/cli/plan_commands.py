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
from quotactl.cli.options import LockTimeoutOption, PathsArgument
from quotactl.errors import ApplyFailedError, UsageError

if TYPE_CHECKING:
    from quotactl.cli.runtime import Runtime
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.desired import DesiredState

PLAN_KEY = "QUOTACTL_PLAN_KEY"
"""The signing secret of plan files (HMAC-SHA256); set it from a CI secret."""


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
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import load, open_backend, reach, report_calls
    from quotactl.core.plan.diff import make_plan

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    backend = open_backend(runtime, desired.region)
    identity = reach(runtime, backend, desired.region, desired.account_id)
    the_plan = make_plan(desired, backend, identity)
    report_calls(runtime, backend)
    _show(runtime, the_plan, output)
    if out is not None:
        _save(the_plan, out, runtime.environ.get(PLAN_KEY))
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
        typer.Option(
            "--plan",
            metavar="FILE",
            help="Apply this saved plan, verified first (refused if edited or stale).",
        ),
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
    lock_timeout: LockTimeoutOption = None,
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
    --max-disruption N. Holds the stack's lock throughout; waits for every resource to be
    VALID.
    """
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import confirm, load, lock_request, open_backend, reach, report_calls
    from quotactl.core.apply.flow import run_apply
    from quotactl.core.apply.preconditions import Guards
    from quotactl.render.progress import ProgressHooks

    runtime = runtime_of(ctx)
    if plan_file is not None and paths:
        raise UsageError("give config PATHs or --plan FILE, not both")
    if max_disruption is not None and max_disruption < 0:
        raise UsageError(f"--max-disruption must be 0 or more, not {max_disruption}")
    source: DesiredState | Plan
    if plan_file is not None:
        source = _read_plan(plan_file, runtime.environ.get(PLAN_KEY))
        expected = None
    else:
        source = load(runtime, paths).desired
        expected = source.account_id
    backend = open_backend(runtime, source.region)
    guards = Guards(
        reach(runtime, backend, source.region, expected),
        allow_delete=allow_delete,
        allow_disruption=allow_disruption,
        max_disruption=max_disruption,
    )
    lock = None if dry_run else lock_request(runtime, backend, "apply", lock_timeout)
    hooks = ProgressHooks(runtime.console())
    try:
        result = run_apply(
            source,
            backend,
            guards,
            lock=lock,
            show=lambda p: _show(runtime, p, PlanFormat.TEXT),
            approve=lambda _: confirm(runtime, "Apply this plan?", auto_approve=auto_approve),
            hooks=hooks,
        )
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
    if dry_run:
        runtime.notice("Dry run: nothing was changed.")
    report_calls(runtime, backend)
    if result is not None and not result.ok:
        raise ApplyFailedError(
            f"{len(result.failed)} change(s) failed and {len(result.skipped)} were skipped",
            hint="fix the cause above and run apply again: it picks up where this one stopped",
        )


def _read_plan(path: Path, key: str | None) -> Plan:
    """The saved plan at ``path``, verified (``quotactl.core.plan.verify``)."""
    from quotactl.config.rules import CONFIG_RULES
    from quotactl.core.plan.envelope import MAX_PLAN_BYTES
    from quotactl.core.plan.verify import load
    from quotactl.errors import NotFoundError

    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError as exc:
        raise NotFoundError(f"no plan file {path}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read plan file {path}: {exc.strerror or exc}") from exc
    return load(data, CONFIG_RULES, key=key)


def _show(runtime: Runtime, the_plan: Plan, output: PlanFormat) -> None:
    from quotactl.render.plan import plan_json, plan_markdown, print_plan

    if output is PlanFormat.JSON:
        runtime.stdout.write(plan_json(the_plan))
    elif output is PlanFormat.MARKDOWN:
        runtime.stdout.write(plan_markdown(the_plan))
    else:
        print_plan(the_plan, runtime.console())


def _save(the_plan: Plan, path: Path, key: str | None) -> None:
    """Write the plan file; signed (HMAC-SHA256) when QUOTACTL_PLAN_KEY is set."""
    from quotactl.core.plan.document import to_document
    from quotactl.core.plan.envelope import sign
    from quotactl.errors import PlanSignatureError

    document = to_document(the_plan)
    if key is not None:
        if not key:
            raise PlanSignatureError(
                "QUOTACTL_PLAN_KEY is set but empty: refusing to write an unsigned plan",
                hint="set it to the signing secret, or unset it to write unsigned plans",
            )
        document = sign(document, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot save the plan to {path}: {exc.strerror or exc}",
            hint="give --out a file path in a writable directory",
        ) from exc


def register(app: typer.Typer) -> None:
    app.command()(plan)
    app.command()(apply)
