"""One exception family for every user-facing failure.

Each error carries a short, stable, kebab-case ``code`` (scripts and tests match on it), a
human ``message`` and an optional ``hint``. Rendering lives in ``quotactl.render.errors`` and
the mapping to exit codes in ``quotactl.cli.app`` (pip's ``DiagnosticPipError`` pattern).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


class QuotactlError(Exception):
    """Base of every error a user may see; never shown with a traceback unless --debug."""

    code: str = "error"

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code is not None:
            self.code = code


class UsageError(QuotactlError):
    """A bad option or argument (exit code 64)."""

    code = "usage"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding about a configuration file, printed as ``FILE:LINE:COL: error: message``."""

    file: str
    line: int
    column: int
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        """``FILE:LINE:COL: error: message`` (or ``warning:``), the form compilers print."""
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


class ConfigError(QuotactlError):
    """The configuration is invalid; ``diagnostics`` holds every finding with its position."""

    code = "config-invalid"

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        *,
        message: str | None = None,
        hint: str | None = None,
    ) -> None:
        errors = [d for d in diagnostics if d.severity == "error"]
        n = len(errors)
        super().__init__(
            message or f"configuration has {n} error{'s' if n != 1 else ''}",
            hint=hint,
        )
        self.diagnostics = diagnostics


class NotFoundError(QuotactlError):
    """Something named by the user does not exist (a file, a queue, a job)."""

    code = "not-found"
