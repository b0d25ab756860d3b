"""``validate`` and ``schema``: check configuration offline; print its JSON Schema for editors."""

from __future__ import annotations

from typing import Annotated

import typer

from quotactl.cli.options import Output, OverrideOption, PathsArgument, RulesOption


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

    runtime = runtime_of(ctx, output)
    runtime.show(api.validate(paths, strict=strict, rules=rules, overrides=override or ()))


def schema(ctx: typer.Context) -> None:
    """Print the JSON Schema of a config file, for editor completion.

    Editors using yaml-language-server read it from a `$schema=` comment on a config
    file's first line (see configs/demo).
    """
    from quotactl import api
    from quotactl.cli.runtime import runtime_of

    runtime_of(ctx).show(api.schema())


def register(app: typer.Typer) -> None:
    app.command("validate")(validate)
    app.command("schema")(schema)
