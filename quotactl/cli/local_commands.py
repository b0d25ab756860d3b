"""``local serve|advance|reset``: the embedded emulated AWS account (docs/emulator.md)."""

from __future__ import annotations

import enum
import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quotactl.cli.options import Duration, DurationArgument
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from quotactl.cli.runtime import Runtime


class Variant(enum.StrEnum):
    """The emulator's variants (docs/emulator.md)."""

    DEFAULT = "default"
    STRICT = "strict"


VariantOption = Annotated[
    Variant | None,
    typer.Option(
        "--variant",
        help="default, or strict: wherever AWS is silent, the reading least convenient to a "
        "client (docs/emulator.md). Stored in the state file; QUOTACTL_EMULATOR_VARIANT too.",
        metavar="VARIANT",
    ),
]

local = typer.Typer(
    name="local",
    help="The embedded emulated AWS account: serve it over HTTP, move its clock, reset it.",
    no_args_is_help=True,
)


def _runtime(ctx: typer.Context) -> Runtime:
    from quotactl.cli.runtime import runtime_of

    return runtime_of(ctx)


@local.command("serve")
def serve(
    ctx: typer.Context,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on; on a non-loopback one any Host header is answered.",
            metavar="HOST",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            help="TCP port, 0-65535 (0 picks a free one).", min=0, max=65535, metavar="PORT"
        ),
    ] = 8765,
    speed: Annotated[
        float,
        typer.Option(
            help="Emulated seconds per wall-clock second (0: only `local advance`).",
            min=0,
            metavar="RATE",
        ),
    ] = 0.0,
    faults: Annotated[
        str | None,
        typer.Option(
            help="Inject faults, e.g. latency_ms=20,throttle=0.2,error=0.05,seed=7.",
            envvar="QUOTACTL_EMULATOR_FAULTS",
            metavar="KEY=VALUE,...",
            show_envvar=True,
        ),
    ] = None,
    status_delay: Annotated[
        float,
        typer.Option(
            help="Emulated seconds each CREATING/UPDATING/... step takes.",
            min=0,
            metavar="SECONDS",
        ),
    ] = 0.0,
    variant: VariantOption = None,
) -> None:
    """Serve the local account over HTTP for any AWS client (AWS CLI, SageMaker SDK).

    Point clients at it with the printed AWS_ENDPOINT_URL_BATCH and any dummy credentials.
    Other quotactl commands and `local advance` may use the same state file meanwhile.
    """
    from quotactl import api
    from quotactl.cli.support import serving

    runtime = _runtime(ctx)
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        runtime.notice(
            f"warning: serving on {host}: anyone who can reach it can change this account "
            "(the URL below is for this machine; others use its network address)"
        )
    server = api.serve(
        runtime.state_path,
        host,
        port,
        speed=speed,
        faults=faults,
        status_delay=status_delay,
        timing=runtime.settings.timing,
        variant=str(variant) if variant else runtime.settings.variant,
    )
    with server as running, serving(runtime):
        url = running.server_url
        out = runtime.stdout
        print(
            f"Serving the local AWS Batch account at {url} (state {runtime.state_path})", file=out
        )
        print(f"export AWS_ENDPOINT_URL_BATCH={url}", file=out)
        runtime.notice(
            "Any AWS client works with dummy credentials, e.g. AWS_ACCESS_KEY_ID=local "
            "AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1. Ctrl-C stops."
        )
        out.flush()
        running.serve_forever(poll_interval=0.2)


@local.command("advance")
def advance(
    ctx: typer.Context,
    seconds: Annotated[
        float,
        DurationArgument(help="How far: 90s, 30m, 2h, 1d or plain seconds."),
    ],
    govern: Annotated[
        list[Path] | None,
        typer.Option(
            "--govern",
            metavar="PATH",
            help="Run a governor cycle of the config at PATH (as `quotactl govern --once`) "
            "at every cadence tick of emulated time on the way. Repeatable.",
            show_default=False,
        ),
    ] = None,
    govern_every: Annotated[
        float | None,
        Duration(
            "--govern-every",
            help="The cadence of those cycles (90s, 5m, 1h), on the emulated clock's whole "
            "multiples of it. Default: 5m.",
        ),
    ] = None,
    allow_disruption: Annotated[
        bool,
        typer.Option(
            "--allow-disruption",
            help="With --govern: apply a lowering that disrupts running jobs at once.",
        ),
    ] = False,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            metavar="FILE",
            help="With --govern: append each action to FILE (JSON Lines), as govern --log.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Move the emulator's clock forward and run the scheduler on the way.

    Jobs start, finish and time out in order at their own times. A `local serve` on the same
    state file sees the new time at once. With --govern PATH, a governor cycle runs at every
    tick (--govern-every, default 5m) of emulated time, after what falls due then: what
    `simulate` does on its virtual clock.
    """
    from quotactl import api

    runtime = _runtime(ctx)
    settings = runtime.settings
    if govern is None and (govern_every is not None or allow_disruption or log is not None):
        raise UsageError(
            "--govern-every, --allow-disruption and --log go with --govern PATH",
            hint="quotactl local advance 1d --govern configs/",
        )
    runtime.show(
        api.advance(
            runtime.state_path,
            seconds,
            faults=settings.faults,
            timing=settings.timing,
            variant=settings.variant,
            govern=govern,
            govern_every=300.0 if govern_every is None else govern_every,
            allow_disruption=allow_disruption,
            log=log,
        )
    )


@local.command("reset")
def reset(
    ctx: typer.Context,
    variant: VariantOption = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            metavar="TIME",
            help="Start a new empty account whose clock is at TIME (ISO 8601, e.g. "
            "2026-12-07T00:00Z), so what happens in it never depends on the day it runs.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Delete the emulator's state (every resource and job, and its clock).

    With --variant, a new empty account of that variant takes its place; with --at TIME, a
    new empty account whose clock starts at TIME.
    """
    from quotactl import api

    runtime = _runtime(ctx)
    chosen = str(variant) if variant else runtime.settings.variant
    runtime.show(api.reset(runtime.state_path, variant=chosen, at=at))


def register(app: typer.Typer) -> None:
    app.add_typer(local)
