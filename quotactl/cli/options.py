"""Options and arguments that several commands share, typed once.

A duration option is ``Annotated[float | None, Duration("--since", help=...)]``: every one
accepts the same spellings and fails with the same message (``--since: invalid duration 'x':
...``, a usage error). ``-o`` takes one of the output enums, whose values key render's views.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from quotactl.api.options import DurationError, Output, ReportOutput, StatusOutput, parse_duration
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.api import Governing

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

# How a replay on the virtual clock applies the config's schedules, budgets and aging
# (simulate, and tune for every candidate): read into one value by ``governing``.
StartOption = Annotated[
    str | None,
    typer.Option(
        "--start",
        metavar="TIME",
        help="The instant of the trace's second 0 (ISO 8601, e.g. 2026-12-07T00:00Z), "
        "for schedule windows and budget periods. Default: the next Monday 00:00 UTC.",
        show_default=False,
    ),
]
NoGovernOption = Annotated[
    bool,
    typer.Option(
        "--no-govern",
        help="Replay without the config's schedules, budgets and aging (as AWS alone).",
    ),
]
GovernEveryOption = Annotated[
    float | None,
    Duration(
        "--govern-every",
        help="The governor's cadence on the virtual clock (90s, 5m, 1h). Default: 5m.",
    ),
]
GovernAllowDisruptionOption = Annotated[
    bool,
    typer.Option(
        "--govern-allow-disruption",
        help="Apply a lowering that disrupts running jobs at once, as govern "
        "--allow-disruption does (default: only as far as it disrupts nothing).",
    ),
]


def governing(
    start: str | None, no_govern: bool, every: float | None, allow_disruption: bool
) -> Governing:
    """The options above as one value: how each replay applies the config's policies."""
    from quotactl import api

    return api.Governing(
        start=start,
        every=300.0 if every is None else every,
        enabled=not no_govern,
        allow_disruption=allow_disruption,
    )
