"""How a QuotactlError looks: ``error[code]: message`` and a hint on stderr, and with
``-o json`` the same as a JSON document on stdout."""

from __future__ import annotations

from typing import Any, TextIO

from quotactl.errors import ConfigError, Diagnostic, QuotactlError, SubmitIncomplete, printable


def format_error(error: QuotactlError) -> str:
    """Plain text (no markup) so it survives pipes, CI logs and NO_COLOR."""
    lines: list[str] = []
    if isinstance(error, ConfigError):
        lines.extend(str(d) for d in error.diagnostics)
    lines.append(f"error[{error.code}]: {error.message}")
    if isinstance(error, SubmitIncomplete):
        lines.extend(
            f"  submitted {job['name']} ({job['job_id']}) to {job['queue']}/{job['share']}"
            for job in error.submitted
        )
    if error.hint:
        lines.append(f"  hint: {error.hint}")
    return printable("\n".join(lines))


def print_error(error: QuotactlError, stream: TextIO) -> None:
    print(format_error(error), file=stream)


ERROR_FORMAT_VERSION = "1"


def error_fields(error: QuotactlError) -> dict[str, str | None]:
    """The ``error`` member of every failure document: code, message and hint."""
    return {"code": error.code, "message": error.message, "hint": error.hint}


def diagnostic_json(diagnostic: Diagnostic) -> dict[str, Any]:
    """One finding about a config file in every JSON document: ``{file, line, column,
    severity, message}``."""
    d = diagnostic
    return {
        "file": d.file,
        "line": d.line,
        "column": d.column,
        "severity": d.severity,
        "message": d.message,
    }


def error_document(error: QuotactlError) -> dict[str, Any]:
    """What a command run with ``-o json`` prints on stdout when it fails.

    ``{"format_version": "1", "error": {"code", "message", "hint"}}``, plus ``diagnostics``
    (file, line, column, severity, message) for an invalid configuration, and ``submitted``
    (each job's job_id, job_arn, name, queue and share) when ``submit --count`` stopped part-way.
    """
    document: dict[str, Any] = {
        "format_version": ERROR_FORMAT_VERSION,
        "error": error_fields(error),
    }
    if isinstance(error, ConfigError):
        document["diagnostics"] = [diagnostic_json(d) for d in error.diagnostics]
    if isinstance(error, SubmitIncomplete):
        document["submitted"] = error.submitted
    return document
