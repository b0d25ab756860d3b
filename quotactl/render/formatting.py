"""The view of ``fmt``: each file it changed (or would change), with its diff if asked."""

from __future__ import annotations

from quotactl.core.formatting import Formatting
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view


@view(Formatting, Output.TEXT)
def show_formatting(result: Formatting, screen: Screen) -> None:
    """One path a line on stdout; with the diffs on stdout, the paths go to stderr."""
    for formatted in result.changed:
        if result.diff:
            screen.write(formatted.diff())
        screen.line(str(formatted.path), stderr=result.diff)
