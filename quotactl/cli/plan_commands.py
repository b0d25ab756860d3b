"""``plan`` and ``apply``: diff config against live, and make live match it.

The reference is docs/plan-and-apply.md.
"""

from __future__ import annotations

import contextlib
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
from quotactl.core.words import count_of
from quotactl.errors import ApplyFailedError, UsageError, WorkInterruptedError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.cli.runtime import Runtime
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.desired import DesiredState
    from quotactl.render.progress import ProgressHooks


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
    from quotactl.core.rules import refusal

    runtime = runtime_of(ctx, output)
    loaded = load(runtime, paths)
    desired = loaded.desired
    chosen = api.rules_for(loaded, rules)
    with runtime.connect(desired.region) as account:
        the_plan = api.plan(account, desired, rules=chosen, overrides=override or ())
        runtime.report_calls(account)
    _show(runtime, the_plan, output)
    failed = refusal(the_plan.rules.results)
    if out is not None:  # with a failed rule too: the file records it, and apply judges again
        api.save_plan(the_plan, out, runtime.environ.get(api.PLAN_KEY))
        runtime.notice(
            f"Saved the plan to {out}; apply exactly it with: quotactl apply --plan {out}"
        )
    if failed is not None:
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
    from quotactl.cli.support import confirm, duration, load
    from quotactl.render.progress import ProgressHooks

    runtime = runtime_of(ctx)
    if plan_file is not None and paths:
        raise UsageError("give config PATHs or --plan FILE, not both")
    if max_disruption is not None and max_disruption < 0:
        raise UsageError(f"--max-disruption must be 0 or more, not {max_disruption}")
    key = runtime.environ.get(api.PLAN_KEY)
    source: DesiredState | Plan
    if plan_file is not None:
        source = api.read_plan(plan_file, key)
        chosen = api.rules_for_paths(rules) if rules else None
    else:
        loaded = load(runtime, paths)
        source, chosen = loaded.desired, api.rules_for(loaded, rules)
    with runtime.connect(source.region) as account:
        hooks = ProgressHooks(runtime.console(), on_finished=runtime.interrupts.finish)
        with _interruptible(runtime, hooks):
            result = api.apply(
                account,
                source,
                show=lambda p: _show(runtime, p, ReportOutput.TEXT),
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
                lock_timeout=0.0 if dry_run else duration("--lock-timeout", lock_timeout),
                on_lock_warning=runtime.warn,
                rules=chosen,
                overrides=override or (),
            )
        if dry_run:
            runtime.notice("Dry run: nothing was changed.")
        runtime.report_calls(account)
    if result is not None and not result.ok:
        raise ApplyFailedError(
            f"{count_of(len(result.failed), 'change')} failed and {len(result.skipped)}"
            f" {'was' if len(result.skipped) == 1 else 'were'} skipped",
            hint="fix the cause above and run apply again: it picks up where this one stopped",
        )


@contextlib.contextmanager
def _interruptible(runtime: Runtime, hooks: ProgressHooks) -> Iterator[None]:
    """Progress closed however apply ends; on Ctrl-C, says exactly which changes were made
    (the stack's lock is released by then) and that running it again resumes."""
    try:
        yield
    except KeyboardInterrupt:
        hooks.close()
        raise apply_interrupted(hooks) from None
    finally:
        hooks.close()


def apply_interrupted(hooks: ProgressHooks) -> WorkInterruptedError:
    """What an interrupted apply had done: each change made, failed, and in flight."""
    done = [o.address for o in hooks.ended if o.status == "done"]
    failed = [o.address for o in hooks.ended if o.status != "done"]
    parts = [f"{count_of(len(done), 'change')} made" + (f" ({', '.join(done)})" if done else "")]
    if failed:
        parts.append(f"{len(failed)} failed or skipped ({', '.join(failed)})")
    if hooks.inflight:
        parts.append(f"in flight, may still complete: {', '.join(sorted(hooks.inflight))}")
    return WorkInterruptedError(
        "apply interrupted: " + "; ".join(parts) + "; the stack lock is not held",
        hint="run apply again: it picks up where this one stopped",
    )


def _show(runtime: Runtime, the_plan: Plan, output: ReportOutput) -> None:
    from quotactl.render.plan import plan_json, plan_markdown, print_plan

    if output is ReportOutput.JSON:
        runtime.stdout.write(plan_json(the_plan))
        runtime.json_written = True  # a failed rule adds no error document after it
    elif output is ReportOutput.MARKDOWN:
        runtime.stdout.write(plan_markdown(the_plan))
    else:
        print_plan(the_plan, runtime.console())


def register(app: typer.Typer) -> None:
    app.command()(plan)
    app.command()(apply)
