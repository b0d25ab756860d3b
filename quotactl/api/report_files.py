"""Report files (``--report FILE.html``): checked before the work, written whole after it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.files import check_writable, write_text

if TYPE_CHECKING:
    from pathlib import Path


def check_report_path(path: Path) -> None:
    """Raise ``io-error`` now if ``path`` cannot be written, before a long run is spent."""
    check_writable(path, "report")


def write_report(path: Path, page: str) -> None:
    """Write ``page`` to ``path`` in one rename: never a partial report."""
    write_text(path, "report", page)


def report_page(result: object) -> str:
    """``result`` drawn as the self-contained HTML page its ``--report`` writes (its view in
    the ``html`` output)."""
    from io import StringIO

    from quotactl.render.views import Screen, show

    page = StringIO()
    show(Screen(page, page), result, "html")
    return page.getvalue()
