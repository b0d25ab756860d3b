"""``plan`` and ``apply``: diff config against live, and make live match it.

The reference is docs/plan-and-apply.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.exitcodes import ExitCode
from quotactl.cli.options import (
    LockTimeoutOption,
    OverrideOption,
    PathsArgument,
    ReportOutput,
    RulesOption,
)
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.api import DesiredState, Plan, Rule
    from quotactl.cli.runtime import Runtime


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
        ReportOutput, typer.Option("-o", "--output", help="text, json, or markdown (PR comment).")
    ] = ReportOutput.TEXT,
    override: OverrideOption = None,
    rules: RulesOption = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            metavar="TIME",
            help="Plan against the settings in force at TIME (ISO 8601, e.g. "
            "2026-12-12T10:00Z): the schedule windows then. Default: now.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Show what apply would change, with the runtime impact on live jobs and every rule's
    result.

    Nothing is changed. Exit code 0 (1 on error, or when a soft rule fails without
    --override NAME or a hard rule fails: the plan is still printed and saved); with
    --detailed-exitcode, 2 when the plan has changes.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import load

    runtime = runtime_of(ctx, output)
    loaded = load(runtime, paths)
    desired = loaded.desired
    chosen = api.rules_for(loaded, rules)
    with runtime.account(desired.region) as account:
        the_plan = api.plan(account, desired, rules=chosen, overrides=override or (), at=at)
    runtime.show(the_plan)
    if out is not None:  # with a failed rule too: the file records it, and apply judges again
        api.save_plan(the_plan, out, runtime.environ.get(api.PLAN_KEY))
        runtime.notice(
            f"Saved the plan to {out}; apply exactly it with: quotactl apply --plan {out}"
        )
    if (failed := api.refusal(the_plan.rules.results)) is not None:
        raise failed
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
    override: OverrideOption = None,
    rules: RulesOption = None,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            metavar="FILE",
            help="Append each change made (JSON Lines, as govern --log) to FILE.",
        ),
    ] = None,
) -> None:
    """Make live resources match the config (or a saved plan).

    Shows the plan first and asks for 'yes' on a terminal. Deletes and replaces need
    --allow-delete; changes that would terminate or expose to preemption SCHEDULED, STARTING
    or RUNNING jobs (judged against the jobs live now) need --allow-disruption or
    --max-disruption N. Every rule is judged again (the config's, a saved plan's, or those
    of --rules PATH); a failing soft rule needs --override NAME, a failing hard rule refuses.
    Holds the stack's lock throughout; waits for every resource to be VALID.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.support import confirm
    from quotactl.render.progress import ProgressHooks

    runtime = runtime_of(ctx)
    if plan_file is not None and paths:
        raise UsageError("give config PATHs or --plan FILE, not both")
    if max_disruption is not None and max_disruption < 0:
        raise UsageError(f"--max-disruption must be 0 or more, not {max_disruption}")
    source, chosen = _source(runtime, paths, plan_file, rules)
    with runtime.account(source.region) as account:
        hooks = ProgressHooks(runtime.console(), on_finished=runtime.interrupts.finish)
        with hooks.closing():
            result = api.apply(
                account,
                source,
                show=lambda the_plan: runtime.show(the_plan, ReportOutput.TEXT),
                approve=lambda _: confirm(
                    runtime,
                    "Apply this plan?",
                    auto_approve=auto_approve,
                    review="the plan (or apply a saved one with --plan)",
                ),
                hooks=hooks,
                dry_run=dry_run,
                allow_delete=allow_delete,
                allow_disruption=allow_disruption,
                max_disruption=max_disruption,
                lock_timeout=lock_timeout or 0.0,  # a dry run takes no lock
                on_lock_warning=runtime.warn,
                rules=chosen,
                overrides=override or (),
                log=log,
            )
        if dry_run:
            runtime.notice("Dry run: nothing was changed.")
    if result is not None:
        runtime.show(result)


def _source(
    runtime: Runtime, paths: list[Path] | None, plan_file: Path | None, rules: list[Path] | None
) -> tuple[DesiredState | Plan, tuple[Rule, ...] | None]:
    """What apply makes live match (the config at ``paths``, or the saved plan), and the rules
    it judges by (None: those the saved plan recorded)."""
    from quotactl import api
    from quotactl.cli.support import load

    if plan_file is not None:
        plan_rules = api.rules_for_paths(rules) if rules else None
        return api.read_plan(plan_file, runtime.environ.get(api.PLAN_KEY)), plan_rules
    loaded = load(runtime, paths)
    return loaded.desired, api.rules_for(loaded, rules)


def register(app: typer.Typer) -> None:
    app.command()(plan)
    app.command()(apply)
