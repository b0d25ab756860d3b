"""Views of ``validate``'s result (a summary line, warnings and rules; or the versioned JSON
report) and of the config files' JSON Schema."""

from __future__ import annotations

from typing import Any

from quotactl.core.outputs import Output
from quotactl.core.validation import ConfigSchema, ConfigSummary, Validation
from quotactl.errors import ConfigError
from quotactl.render.errors import diagnostic_json, error_fields
from quotactl.render.rules import rules_plain
from quotactl.render.views import Screen, view

FORMAT_VERSION = "1"


@view(Validation, Output.TEXT)
def show_validation(result: Validation, screen: Screen) -> None:
    """The warnings on stderr, the summary line and the rules on stdout; an error is the
    error boundary's to print."""
    error = result.error
    if result.summary is not None and not isinstance(error, ConfigError):
        for warning in result.warnings:
            screen.line(str(warning), stderr=True)
        if error is None or result.rules:
            screen.line(summary_line(result, result.summary))
    if result.rules:
        screen.write(rules_plain(result.rules))


@view(Validation, Output.JSON)
def show_validation_json(result: Validation, screen: Screen) -> None:
    screen.write_json(validation_json(result))


def validation_json(result: Validation) -> dict[str, Any]:
    """The versioned JSON shape of ``validate -o json``; ``valid`` is true iff exit code 0.

    On failure it holds every member of the error document other commands print
    (``format_version``, ``error``, ``diagnostics``), plus validate's own.
    """
    error = result.error
    diagnostics = error.diagnostics if isinstance(error, ConfigError) else result.warnings
    summary = result.summary
    return {
        "format_version": FORMAT_VERSION,
        "valid": error is None,
        "paths": [str(p) for p in result.paths],
        "error": None if error is None else error_fields(error),
        "diagnostics": [diagnostic_json(d) for d in diagnostics],
        "summary": None
        if summary is None
        else {
            "files": list(summary.files),
            "environments": summary.environments,
            "queues": summary.queues,
            "teams": summary.teams,
            "shares": summary.shares,
        },
        "rules": [r.to_json() for r in result.rules],
    }


def summary_line(result: Validation, summary: ConfigSummary) -> str:
    """``configs/demo: 5 files, 1 environment, 1 queue, 4 teams, 4 shares: valid``."""
    counts = ", ".join(
        _plural(n, noun)
        for n, noun in (
            (len(summary.files), "file"),
            (summary.environments, "environment"),
            (summary.queues, "queue"),
            (summary.teams, "team"),
            (summary.shares, "share"),
        )
    )
    warnings = len(result.warnings)
    verdict = f"valid, {_plural(warnings, 'warning')}" if warnings else "valid"
    return f"{' '.join(str(p) for p in result.paths)}: {counts}: {verdict}"


@view(ConfigSchema, Output.TEXT, Output.JSON)
def show_schema(schema: ConfigSchema, screen: Screen) -> None:
    """The schema document, whatever the output: editors read it as it is."""
    screen.write_json(schema.document)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
