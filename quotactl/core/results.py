"""What every result value may say besides its figures: that its command failed after all.

A use case returns one value that a view draws whole (``quotactl.render.views``). Some
commands have work that partly fails (``job cancel`` of three jobs, one finished): the
result is still drawn, and then the command ends with the error the result names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quotactl.errors import QuotactlError


class Failable:
    """A result whose command fails, after it is shown, when ``failure()`` names an error."""

    def failure(self) -> QuotactlError | None:
        """The error the command ends with, or None when it succeeded."""
        return None
