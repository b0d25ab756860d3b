"""``import``: which live resources a stack may adopt by tagging them, and which it may not.

A resource the config names is adoptable when it carries no ``quotactl:stack`` tag; one that
another stack owns is refused as a whole (nothing is tagged), since taking it over would leave
that stack planning to delete it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.plan import UnmanagedResourceError

if TYPE_CHECKING:
    from quotactl.core.model import DesiredState
    from quotactl.core.observed import ObservedResource, ObservedState, Spec


def unmanaged(desired: DesiredState, observed: ObservedState) -> list[ObservedResource]:
    """Live resources that config names but that this stack does not own."""
    live = observed.present()
    specs: list[Spec] = [
        *desired.environments,
        *desired.policies,
        *desired.queues,
        *desired.shares,
    ]
    return [
        live[s.address]
        for s in specs
        if s.address in live and live[s.address].stack != desired.stack
    ]


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
