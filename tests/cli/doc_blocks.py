"""A command's output shown in a page of the docs: compared, or rewritten on request.

``QUOTACTL_UPDATE_DOC_BLOCKS=1 python -m pytest <test>`` writes the command's real output into
the page where it changed on purpose; otherwise the page must show exactly what it prints.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def shown_or_updated(page: Path, text: str, before: str, shown: str, output: str) -> None:
    """Assert ``output`` is the block ``shown`` (which follows ``before`` in ``text``, the
    page's content), or replace it in ``page`` when asked to."""
    if os.environ.get("QUOTACTL_UPDATE_DOC_BLOCKS") == "1" and output != shown:
        page.write_text(text.replace(before + shown, before + output, 1), encoding="utf-8")
        return
    assert output == shown
