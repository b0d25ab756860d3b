"""Between a live account and configuration: ``export`` (live -> config files) and
``import_resources`` (adopt live resources that config names into its stack)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.config.export import Export
    from quotactl.config.writer import Written
    from quotactl.core.apply.flow import LockRequest
    from quotactl.core.plan.adoption import ConfigExport, Imported
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import ObservedResource, ObservedState


def export(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    stack: str | None = None,
    region: str | None = None,
) -> Export:
    """Configuration documents for ``queues`` (default: every quota-management queue of
    ``stack``, or of the account when no stack is named) such that a plan on them shows no
    change; ``stack`` defaults to the queues' stack tag. A queue of another stack is never
    exported under ``stack``'s name."""
    from quotactl.config.export import export as to_config, quota_queues
    from quotactl.core.govern import GOVERNED_TAG, read_governed_tag
    from quotactl.core.resources.desired import GOVERNOR_TAGS, address_of

    observed = account.backend.observe("", queues or [])
    chosen = list(queues or quota_queues(observed))
    if stack is not None:
        chosen = _of_stack(observed, chosen, stack, named=bool(queues))
    if not chosen:
        raise NotFoundError(
            "the account has no quota-management job queue to export",
            hint="check --backend/--state/--region; `quotactl apply` creates them",
        )
    missing = [q for q in chosen if address_of("queue", q) not in observed.present()]
    if missing:
        raise NotFoundError(
            f"no job queue {', '.join(repr(n) for n in missing)} in this account and region",
            hint="without --queue, every quota-managed queue is exported",
        )
    if not queues:
        observed = account.backend.observe("", chosen)
    name = stack or _stack_of(observed, chosen)
    found_region, account_id = _region_and_account(observed, region)
    governed = {
        address: read_governed_tag(r.spec.tags[GOVERNED_TAG])[0]
        for address, r in observed.present().items()
        if GOVERNED_TAG in r.spec.tags
    }
    observed = observed.without_tags(GOVERNOR_TAGS)
    return to_config(
        observed,
        chosen,
        stack=name,
        region=found_region,
        account_id=account_id,
        governed=governed,
    )


def export_config(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    stack: str | None = None,
    region: str | None = None,
    out: Path | None = None,
    force: bool = False,
) -> ConfigExport:
    """``export``: the configuration of ``queues`` as one YAML document, or written to
    ``out`` (checked before the account is read) as ``platform.yaml`` and a file per team."""
    from quotactl.core.plan.adoption import ConfigExport

    if out is not None:
        check_config_out(out)
    exported = export(account, queues, stack=stack, region=region)
    warnings = tuple(exported.warnings)
    if out is None:
        return ConfigExport(warnings, text=config_yaml(exported))
    written = write_config(exported, out, force=force)
    return ConfigExport(
        warnings,
        out=out,
        written=tuple(written.written),
        removed=tuple(written.removed),
        others=tuple(written.others),
    )


def config_yaml(exported: Export) -> str:
    """The exported configuration as one YAML document."""
    from quotactl.config.writer import dump

    return dump(exported.combined())


def check_config_out(out: Path) -> None:
    """Refuse an ``--out`` that is no directory (a file, a device) before any work."""
    from quotactl.config.writer import check_out

    check_out(out)


def write_config(exported: Export, out: Path, *, force: bool = False) -> Written:
    """Write ``platform.yaml`` and ``teams/<team>.yaml`` under ``out`` (refusing a non-empty
    directory unless ``force``, which also removes the files of teams that are gone)."""
    from quotactl.config.writer import write

    return write(exported.files, out, force=force)


def import_resources(
    account: Account,
    desired: DesiredState,
    lock: LockRequest,
    *,
    review: Callable[[Sequence[ObservedResource]], None],
    on_imported: Callable[[ObservedResource], None] | None = None,
) -> list[ObservedResource]:
    """Tag with ``quotactl:stack`` what ``desired`` names and no stack owns, under the stack's
    lock; ``review`` sees them first and raises to refuse. Returns what was imported."""
    from quotactl.core.plan.adoption import adoptable
    from quotactl.core.resources.desired import STACK_TAG

    with lock.hold(desired.stack):
        observed = account.backend.observe(desired.stack, [q.name for q in desired.queues])
        found = adoptable(desired, observed)
        if not found:
            return []
        review(found)
        for resource in found:
            account.backend.tag(resource.arn, {STACK_TAG: desired.stack})
            if on_imported is not None:
                on_imported(resource)
    return list(found)


def import_stack(
    account: Account,
    desired: DesiredState,
    *,
    review: Callable[[Sequence[ObservedResource]], None],
    on_imported: Callable[[ObservedResource], None] | None = None,
    lock_timeout: float = 0.0,
    on_lock_warning: Callable[[str], None] | None = None,
) -> Imported:
    """``import``: in the account ``desired`` names (``platform.account_id``), tag into its
    stack what it names and no stack owns, under the stack's lock (waiting ``lock_timeout``
    seconds for another holder); ``review`` sees them first and raises to refuse."""
    from quotactl.api.stack import lock_request
    from quotactl.core.plan.adoption import Imported

    account.reach(desired.account_id)
    lock = lock_request(account, "import", lock_timeout, on_warning=on_lock_warning)
    found = import_resources(account, desired, lock, review=review, on_imported=on_imported)
    return Imported(desired.stack, tuple(found))


def _of_stack(observed: ObservedState, queues: list[str], stack: str, *, named: bool) -> list[str]:
    """The queues of ``queues`` that stack ``stack`` owns (or that no stack owns); a queue named
    with ``--queue`` that another stack owns is refused rather than left out."""
    from quotactl.core.resources.desired import address_of

    present = observed.present()
    owners = {
        q: present[address_of("queue", q)].stack
        for q in queues
        if address_of("queue", q) in present
    }
    others = sorted(q for q, owner in owners.items() if owner not in (None, stack))
    if named and others:
        listed = ", ".join(f"{q!r} (stack {owners[q]!r})" for q in others)
        raise UsageError(
            f"--stack {stack}: {listed} belong to another stack",
            hint="export each stack on its own, or leave out --stack to export them as tagged",
        )
    kept = [q for q in queues if q not in others]
    if not kept and not named:
        found = sorted({str(o) for o in owners.values() if o is not None})
        raise NotFoundError(
            f"no quota-management job queue of stack {stack!r} in this account and region",
            hint=f"stacks here: {', '.join(found) or 'none'}",
        )
    return kept


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
