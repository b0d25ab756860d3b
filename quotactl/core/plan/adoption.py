"""Live resources a config names but its stack does not own: ``plan`` refuses them, and
``import`` adopts the untagged ones by tagging them.

A resource the config names is adoptable when it carries no ``quotactl:stack`` tag; one that
another stack owns is refused as a whole (nothing is tagged), since taking it over would leave
that stack planning to delete it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.errors import UnmanagedResourceError

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import ObservedResource, ObservedState


@dataclass(frozen=True)
class Imported:
    """What ``import`` adopted into ``stack`` (tagged): nothing when it owned everything."""

    stack: str
    resources: tuple[ObservedResource, ...]


def unmanaged(desired: DesiredState, observed: ObservedState) -> list[ObservedResource]:
    """Live resources that config names but that this stack does not own."""
    live = observed.present()
    return [
        live[s.address]
        for s in desired.specs
        if s.address in live and live[s.address].stack != desired.stack
    ]


def refuse_unmanaged(desired: DesiredState, observed: ObservedState) -> None:
    """``plan`` refuses a config that names a live resource this stack does not own."""
    foreign = unmanaged(desired, observed)
    if not foreign:
        return
    lines = []
    for r in foreign:
        owner = f"stack {r.stack!r}" if r.stack else "no quotactl:stack tag"
        lines.append(f"{r.address} ({owner})")
    untagged = any(r.stack is None for r in foreign)
    hint = (
        "run `quotactl import` to adopt untagged resources into this stack"
        if untagged
        else "these belong to another stack: rename them here or remove them there first"
    )
    raise UnmanagedResourceError(
        "configuration names live resources this stack does not manage: " + ", ".join(lines),
        hint=hint,
    )


def adoptable(desired: DesiredState, observed: ObservedState) -> list[ObservedResource]:
    """What ``import`` tags, in config order; refuses when another stack owns any of them."""
    found = unmanaged(desired, observed)
    foreign = [r for r in found if r.stack is not None]
    if foreign:
        owners = ", ".join(f"{r.address} (stack {r.stack!r})" for r in foreign)
        raise UnmanagedResourceError(
            f"these belong to another stack and cannot be imported: {owners}",
            hint="remove them from the other stack's config (and its tag) first",
        )
    return found


@dataclass(frozen=True)
class ConfigExport:
    """What ``export`` made of the live account: the configuration as one YAML document
    (without ``--out``), or the files written to ``out`` (relative to it), and what could not
    be expressed."""

    warnings: tuple[str, ...]
    text: str | None = None
    out: Path | None = None
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    """Files of teams that no longer exist, removed (``--force``)."""
    others: tuple[str, ...] = ()
    """YAML files left alone in ``out`` that ``plan DIR`` would read too."""
