"""``validate`` and ``schema``: check configuration offline; print its JSON Schema for editors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from quotactl.cli.options import Output, OverrideOption, PathsArgument, RulesOption
from quotactl.errors import ConfigError, QuotactlError

if TYPE_CHECKING:
    from quotactl.api import LoadedConfig
    from quotactl.cli.runtime import Runtime
    from quotactl.core.rules import RuleResult
    from quotactl.errors import Diagnostic

FORMAT_VERSION = "1"


def validate(
    ctx: typer.Context,
    paths: PathsArgument = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail (exit 1) on warnings too.")
    ] = False,
    output: Annotated[
        Output, typer.Option("-o", "--output", help="Report as text or JSON.")
    ] = Output.TEXT,
    override: OverrideOption = None,
    rules: RulesOption = None,
) -> None:
    """Check config files without calling AWS, and judge the rules that need no live state.

    Every problem is printed as FILE:LINE:COL; warnings pass unless --strict. Each rule is
    listed with pass, fail or overridden. Exit code 0 when the config is valid and no soft
    (unless --override NAME) or hard rule fails, 1 otherwise.
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of
    from quotactl.core.rules import refusal

    runtime = runtime_of(ctx, output)
    result = api.validate(paths, strict=strict)
    judged: list[RuleResult] = []
    error = result.error
    if result.loaded is not None and error is None:
        try:
            chosen = api.rules_for(result.loaded, rules)
            judged = list(api.judge_config(chosen, result.loaded.desired, override or ()).results)
        except QuotactlError as exc:
            error = exc
        error = error or refusal(judged)
    if output is Output.JSON:
        _print_json(runtime, _report(result.paths, result.loaded, error, judged))
        if error is not None:
            raise error
        return
    if result.loaded is not None and not isinstance(error, ConfigError):
        for warning in result.loaded.diagnostics:
            print(warning, file=runtime.stderr)
        if error is None or judged:
            print(_summary(result.paths, result.loaded), file=runtime.stdout)
    if judged:
        from quotactl.render.rules import rules_plain

        print(rules_plain(judged), end="", file=runtime.stdout)
    if error is not None:
        raise error


def schema(ctx: typer.Context) -> None:
    """Print the JSON Schema of a config file, for editor completion.

    Editors using yaml-language-server read it from a `$schema=` comment on a config
    file's first line (see configs/demo).
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    print(json.dumps(api.schema(), indent=2), file=runtime_of(ctx).stdout)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
    app.command("schema")(schema)


def _summary(paths: list[Path], loaded: LoadedConfig) -> str:
    """``configs/demo: 5 files, 1 environment, 1 queue, 4 teams, 4 shares: valid``."""
    model = loaded.model
    counts = ", ".join(
        _plural(n, noun)
        for n, noun in (
            (len(loaded.files), "file"),
            (len(model.environments), "environment"),
            (len(model.queues), "queue"),
            (len(model.teams), "team"),
            (len(loaded.desired.shares), "share"),
        )
    )
    warnings = len(loaded.diagnostics)
    verdict = f"valid, {_plural(warnings, 'warning')}" if warnings else "valid"
    return f"{' '.join(str(p) for p in paths)}: {counts}: {verdict}"


def _report(
    paths: list[Path],
    loaded: LoadedConfig | None,
    error: QuotactlError | None,
    judged: list[RuleResult],
) -> dict[str, Any]:
    """The versioned JSON shape of ``validate -o json``; ``valid`` is true iff exit code 0.

    On failure it holds every member of the error document other commands print
    (``format_version``, ``error``, ``diagnostics``), plus validate's own.
    """
    from quotactl.render.errors import error_fields

    diagnostics: list[Diagnostic] = []
    if isinstance(error, ConfigError):
        diagnostics = error.diagnostics
    elif loaded is not None:
        diagnostics = loaded.diagnostics
    summary = None
    if loaded is not None:
        summary = {
            "files": [str(f) for f in loaded.files],
            "environments": len(loaded.desired.environments),
            "queues": len(loaded.desired.queues),
            "teams": len(loaded.model.teams),
            "shares": len(loaded.desired.shares),
        }
    return {
        "format_version": FORMAT_VERSION,
        "valid": error is None,
        "paths": [str(p) for p in paths],
        "error": None if error is None else error_fields(error),
        "diagnostics": [
            {
                "file": d.file,
                "line": d.line,
                "column": d.column,
                "severity": d.severity,
                "message": d.message,
            }
            for d in diagnostics
        ],
        "summary": summary,
        "rules": [r.to_json() for r in judged],
    }


def _print_json(runtime: Runtime, document: dict[str, Any]) -> None:
    runtime.write_json(document)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
