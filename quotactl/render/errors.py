"""How a QuotactlError looks on stderr: ``error[code]: message`` then an optional hint."""

from __future__ import annotations

from typing import TextIO

from quotactl.errors import ConfigError, QuotactlError


def format_error(error: QuotactlError) -> str:
    """Plain text (no markup) so it survives pipes, CI logs and NO_COLOR."""
    lines: list[str] = []
    if isinstance(error, ConfigError):
        lines.extend(str(d) for d in error.diagnostics)
    lines.append(f"error[{error.code}]: {error.message}")
    if error.hint:
        lines.append(f"  hint: {error.hint}")
    return "\n".join(lines)


def print_error(error: QuotactlError, stream: TextIO) -> None:
    print(format_error(error), file=stream)
