"""What ``import`` shows: the resources it will tag (before asking), each as it is tagged,
and the closing line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.outputs import Output
from quotactl.core.plan.adoption import ConfigExport, Imported
from quotactl.core.resources.desired import STACK_TAG
from quotactl.core.words import count_of
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from quotactl.core.resources.observed import ObservedResource


class ImportProgress:
    """Import's live lines on ``console``: the review of what will be tagged, then each
    resource as it is tagged."""

    def __init__(self, console: Console, stack: str) -> None:
        self.console = console
        self.tag = f"{STACK_TAG}={stack}"

    def review(self, found: Sequence[ObservedResource]) -> None:
        """``quotactl will tag 2 resources with quotactl:stack=demo:`` and one line each."""
        self.console.print(f"quotactl will tag {count_of(len(found), 'resource')} with {self.tag}:")
        for resource in found:
            self.console.print(f"  + {resource.address}  ({resource.arn})", markup=False)

    def imported(self, resource: ObservedResource) -> None:
        self.console.print(f"  {resource.address}: imported", markup=False)


@view(Imported, Output.TEXT)
def show_imported(result: Imported, screen: Screen) -> None:
    console = screen.console()
    if not result.resources:
        console.print(f"Nothing to import: stack {result.stack!r} owns every resource it names.")
        return
    console.print(
        f"Imported {count_of(len(result.resources), 'resource')}."
        " Run `quotactl plan` to see what still differs.",
        markup=False,
    )


@view(ConfigExport, Output.TEXT)
def show_export(result: ConfigExport, screen: Screen) -> None:
    """``export``: the YAML on stdout, or what was written where (notices on stderr)."""
    for warning in result.warnings:
        screen.notice(f"warning: {warning}")
    if result.out is None:
        screen.write(result.text or "")
        return
    out = result.out
    for removed in result.removed:
        screen.notice(f"Removed {out / removed} (its team no longer exists)")
    for other in result.others:
        screen.notice(f"warning: {out / other} was not written by this export; plan reads it too")
    screen.notice(
        f"Wrote {count_of(len(result.written), 'file')} to {out}; check them with:"
        f" quotactl plan {out}"
    )
