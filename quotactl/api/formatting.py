"""``fmt``: config files in their canonical layout (``quotactl.config.layout``), as
``terraform fmt`` does for HCL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.formatting import Formatted, Formatting

__all__ = ["Formatted", "Formatting", "fmt", "format_files", "write_formatted"]

if TYPE_CHECKING:
    from collections.abc import Sequence


def format_files(paths: Sequence[Path | str] | None = None) -> list[Formatted]:
    """Every YAML file at ``paths`` (files or directories; default ``configs/``), formatted in
    memory; nothing is written. A file that is not one YAML document is ``config-invalid``."""
    from quotactl.api.config import DEFAULT_CONFIG
    from quotactl.config import discover_files
    from quotactl.config.layout import format_text
    from quotactl.core.files import MAX_CONFIG_BYTES, check_readable, check_size
    from quotactl.errors import FileIOError

    results: list[Formatted] = []
    for path in discover_files([Path(p) for p in paths or [DEFAULT_CONFIG]]):
        check_readable(path, "config file")
        check_size(path, MAX_CONFIG_BYTES, "config file")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise FileIOError(f"cannot read config file {path}: {exc}") from None
        results.append(Formatted(path, text, format_text(text, str(path))))
    return results


def write_formatted(formatted: Formatted) -> None:
    """Replace the file with its canonical layout in one rename (nothing partial is left)."""
    from quotactl.core.files import write_text

    write_text(formatted.path, "config file", formatted.formatted)


def fmt(
    paths: Sequence[Path | str] | None = None, *, check: bool = False, diff: bool = False
) -> Formatting:
    """Rewrite every config file at ``paths`` not in its canonical layout (with ``check``,
    write nothing); the result names those files, and carries ``diff`` for its view."""
    changed = tuple(f for f in format_files(paths) if f.changed)
    if not check:
        for formatted in changed:
            write_formatted(formatted)
    return Formatting(changed, check=check, diff=diff)
