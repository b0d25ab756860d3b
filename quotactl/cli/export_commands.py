"""``export`` and ``import``: live -> config files, and adopting live resources into a stack."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import LockTimeoutOption, PathsArgument
from quotactl.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from quotactl.aws.backend import AwsBackend
    from quotactl.cli.runtime import Runtime
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import ObservedState


def export(
    ctx: typer.Context,
    queue: Annotated[
        list[str] | None,
        typer.Option(
            "--queue",
            metavar="QUEUE",
            help="Export this queue (repeatable) [default: every quota queue].",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write platform.yaml and teams/<team>.yaml here [default: one file on stdout].",
        ),
    ] = None,
    stack: Annotated[
        str | None,
        typer.Option(
            "--stack",
            metavar="NAME",
            help="platform.name [default: the resources' quotactl:stack tag].",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Write into a non-empty --out, removing stale team files."),
    ] = False,
) -> None:
    """Write config YAML from the live account; a plan on it shows no change.

    --out refuses a non-empty directory unless --force (which also removes team files of
    teams that no longer exist).
    """
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import open_backend
    from quotactl.config.export import export as to_config
    from quotactl.config.export import quota_queues
    from quotactl.config.writer import dump, write
    from quotactl.core.resources.desired import address_of

    runtime = runtime_of(ctx)
    if out is not None and out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; export writes a directory of YAML files")
    backend = open_backend(runtime, None)
    observed = backend.observe("", queue or [])
    chosen = list(queue or quota_queues(observed))
    if not chosen:
        raise NotFoundError(
            "the account has no quota-management job queue to export",
            hint="check --backend/--state/--region; `quotactl apply` creates them",
        )
    missing = [q for q in chosen if address_of("queue", q) not in observed.present()]
    if missing:
        raise UsageError(f"no such job queue: {', '.join(missing)}")
    if not queue:
        observed = backend.observe("", chosen)
    name = stack or _stack_of(observed, chosen)
    region, account = _region_and_account(observed, runtime.region)
    result = to_config(observed, chosen, stack=name, region=region, account_id=account)
    for warning in result.warnings:
        runtime.notice(f"warning: {warning}")
    if out is None:
        runtime.stdout.write(dump(result.combined()))
        return
    written = write(result.files, out, force=force)
    for removed in written.removed:
        runtime.notice(f"Removed {out / removed} (its team no longer exists)")
    for other in written.others:
        runtime.notice(f"warning: {out / other} was not written by this export; plan reads it too")
    runtime.notice(
        f"Wrote {len(written.written)} file(s) to {out}; check them with: quotactl plan {out}"
    )


def import_(
    ctx: typer.Context,
    paths: PathsArgument = None,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Do not ask for confirmation.")
    ] = False,
    lock_timeout: LockTimeoutOption = None,
) -> None:
    """Adopt live resources that config names but no stack owns, by tagging them.

    Shows what would be tagged with quotactl:stack and asks first; resources owned by
    another stack are refused. Run plan afterwards to see any remaining differences.
    """
    from quotactl.cli.runtime import runtime_of
    from quotactl.cli.stack import load, lock_request, open_backend, reach

    runtime = runtime_of(ctx)
    desired = load(runtime, paths).desired
    backend = open_backend(runtime, desired.region)
    reach(runtime, backend, desired.region, desired.account_id)
    with lock_request(runtime, backend, "import", lock_timeout).hold(desired.stack):
        _adopt(runtime, backend, desired, auto_approve=auto_approve)


def _adopt(
    runtime: Runtime, backend: AwsBackend, desired: DesiredState, *, auto_approve: bool
) -> None:
    """Tag what config names and no stack owns, after showing it (under the stack's lock)."""
    from quotactl.cli.stack import confirm
    from quotactl.core.plan.adoption import adoptable
    from quotactl.core.resources.desired import STACK_TAG

    found = adoptable(desired, backend.observe(desired.stack, [q.name for q in desired.queues]))
    if not found:
        runtime.console().print(
            f"Nothing to import: stack {desired.stack!r} owns every resource it names."
        )
        return
    console = runtime.console()
    console.print(f"quotactl will tag {len(found)} resource(s) with {STACK_TAG}={desired.stack}:")
    for resource in found:
        console.print(f"  + {resource.address}  ({resource.arn})", markup=False)
    confirm(runtime, "Import these resources?", auto_approve=auto_approve)
    for resource in found:
        backend.tag(resource.arn, {STACK_TAG: desired.stack})
        console.print(f"  {resource.address}: imported", markup=False)
    console.print(
        f"Imported {len(found)} resource(s). Run `quotactl plan` to see what still differs.",
        markup=False,
    )


def _stack_of(observed: ObservedState, queues: list[str]) -> str:
    from quotactl.core.resources.desired import STACK_TAG, address_of

    present = observed.present()
    stacks = {present[address_of("queue", q)].stack for q in queues}
    stacks.discard(None)
    if len(stacks) == 1:
        return str(stacks.pop())
    found = ", ".join(sorted(str(s) for s in stacks)) or "none"
    raise UsageError(
        f"cannot tell the stack name from the queues' {STACK_TAG} tags (found: {found})",
        hint="name it with --stack NAME",
    )


def _region_and_account(observed: ObservedState, region: str | None) -> tuple[str, str | None]:
    for resource in observed.resources:
        parts = resource.arn.split(":")
        if len(parts) > 4:
            return region or parts[3], parts[4] or None
    return region or "us-east-1", None


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command("import")(import_)
