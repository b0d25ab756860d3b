"""Config files in their canonical layout: each file as it is and as ``fmt`` writes it."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Formatted:
    """One file as it is and as fmt would write it."""

    path: Path
    original: str
    formatted: str

    @property
    def changed(self) -> bool:
        return self.original != self.formatted

    def diff(self) -> str:
        """A unified diff from the file to its canonical layout (empty when unchanged)."""
        name = str(self.path)
        return "".join(
            difflib.unified_diff(
                self.original.splitlines(keepends=True),
                self.formatted.splitlines(keepends=True),
                fromfile=f"{name} (original)",
                tofile=f"{name} (formatted)",
            )
        )


@dataclass(frozen=True)
class Formatting:
    """What ``fmt`` did: the files not in their canonical layout (rewritten unless ``check``),
    and whether their diffs are shown."""

    changed: tuple[Formatted, ...]
    check: bool = False
    diff: bool = False
