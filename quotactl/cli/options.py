"""Options and arguments that several commands share, typed once.

A duration option is ``Annotated[float | None, Duration("--since", help=...)]``: every one
accepts the same spellings and fails with the same message (``--since: invalid duration 'x':
...``, a usage error). ``-o`` takes one of the output enums, whose values key render's views.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from quotactl.api.options import DurationError, Output, ReportOutput, StatusOutput, parse_duration
from quotactl.errors import UsageError

__all__ = [
    "Duration",
    "DurationArgument",
    "Output",
    "OutputOption",
    "ReportOutput",
    "StatusOutput",
]


def Duration(flag: str, *, help: str, **settings: Any) -> Any:
    """A duration option ``flag``, in seconds: ``90s``, ``30m``, ``2h``, ``1d``, ``1h30m`` or
    plain seconds; anything else is ``usage`` (``--since: invalid duration 'x': ...``)."""
    settings.setdefault("show_default", False)
    return typer.Option(
        flag, metavar="DURATION", parser=_seconds_parser(f"{flag}: "), help=help, **settings
    )


def DurationArgument(*, help: str) -> Any:
    """A duration argument (``local advance DURATION``), parsed as ``Duration`` is."""
    return typer.Argument(
        metavar="DURATION", parser=_seconds_parser(""), help=help, show_default=False
    )


def _seconds_parser(prefix: str) -> Callable[[str], float]:
    def seconds(text: str) -> float:
        try:
            return parse_duration(text)
        except DurationError as exc:
            raise UsageError(f"{prefix}{exc}") from None

    return seconds


OutputOption = Annotated[
    Output, typer.Option("-o", "--output", help="Report as text or JSON.", show_default=True)
]

PathsArgument = Annotated[
    list[Path] | None,
    typer.Argument(
        metavar="PATH",
        help="Config files or directories (recursive *.yaml, *.yml) [default: configs/].",
        show_default=False,
    ),
]
LockTimeoutOption = Annotated[
    float | None,
    Duration(
        "--lock-timeout",
        help="Wait this long for another apply/import of the stack to finish "
        "(30s, 5m, ...) [default: 0, refuse at once].",
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
    float | None,
    Duration("--since", help="Only jobs submitted in this last stretch (90s, 30m, 2h, 7d)."),
]
