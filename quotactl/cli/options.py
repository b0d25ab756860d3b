"""Options and arguments that several commands share, defined once."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer


class OutputFormat(enum.StrEnum):
    """What a read command prints with ``-o``: a table for people, or one JSON document."""

    TEXT = "text"
    JSON = "json"


class ReportFormat(enum.StrEnum):
    """What a report (a plan, a what-if) prints with ``-o``: also markdown, for a PR comment."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(
        metavar="PATH",
        help="Config files or directories (recursive *.yaml, *.yml) [default: configs/].",
        show_default=False,
    ),
]
LockTimeoutOption = Annotated[
    str | None,
    typer.Option(
        "--lock-timeout",
        metavar="DURATION",
        help="Wait this long for another apply/import of the stack to finish "
        "(30s, 5m, ...) [default: 0, refuse at once].",
        show_default=False,
    ),
]
OverrideOption = Annotated[
    list[str] | None,
    typer.Option(
        "--override",
        metavar="NAME",
        help="Accept the failing soft rule NAME (repeatable); hard rules cannot be overridden.",
        show_default=False,
    ),
]
RulesOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--rules",
        metavar="PATH",
        help="Judge by the rules of these config files or directories instead of the "
        "config's own (e.g. the base branch's; repeatable).",
        show_default=False,
    ),
]
QueuesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--queue",
        metavar="QUEUE",
        help="Only this job queue (repeatable; default: every quota-managed queue).",
        show_default=False,
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="DURATION",
        help="Only jobs submitted in this last stretch (90s, 30m, 2h, 7d).",
        show_default=False,
    ),
]
