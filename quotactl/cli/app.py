"""The root command, its global options and the one error boundary (pip's ``_run_wrapper``).

Every command module exposes ``register(app)``; this module adds them in help order. Command
modules import heavy libraries (boto3, botocore, rich) inside their functions only, so that
``quotactl --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from quotactl.cli import completion_commands, helptext
from quotactl.cli.boundary import discard_stdout, report, unexpected
from quotactl.cli.exitcodes import ExitCode
from quotactl.cli.options import Duration
from quotactl.cli.runtime import BACKENDS, DEFAULT_STATE, Runtime
from quotactl.errors import QuotactlError, UsageError, WorkInterruptedError

if TYPE_CHECKING:
    from collections.abc import Sequence

app = typer.Typer(
    name="quotactl",
    help="Declarative administration of AWS Batch quota shares for SageMaker Training.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: half the start-up time of rich panels, and "[default: ...]" in help
    # text is printed instead of being taken for rich markup.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    """``quotactl/0.1.0 Python/3.11.7 Linux/6.1.0 boto3/1.44.8 botocore/1.44.8``, as the AWS
    CLI prints its own and its libraries' versions."""
    if value:
        from quotactl.api.checkup import version_line

        print(version_line())
        raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    backend: Annotated[
        str | None,
        typer.Option(
            metavar="local|aws",
            help="Where resources live: 'local' (embedded emulator, default) or 'aws'.",
            autocompletion=lambda: list(BACKENDS),
            envvar="QUOTACTL_BACKEND",
            show_envvar=True,
        ),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help=f"Emulator state file for --backend local [default: {DEFAULT_STATE}].",
            envvar="QUOTACTL_STATE",
            show_envvar=True,
        ),
    ] = None,
    profile: Annotated[
        str | None, typer.Option(metavar="NAME", help="AWS profile (aws backend).")
    ] = None,
    region: Annotated[
        str | None,
        typer.Option(
            metavar="REGION", help="AWS region (else platform.region, else AWS defaults)."
        ),
    ] = None,
    endpoint_url: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Any Batch-compatible endpoint, e.g. a `quotactl local serve`.",
            envvar="AWS_ENDPOINT_URL_BATCH",
            show_envvar=True,
        ),
    ] = None,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="Plain output (NO_COLOR is honoured too).")
    ] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="Only results and errors.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    connect_timeout: Annotated[
        float | None,
        Duration(
            "--connect-timeout",
            help="Give up opening a connection to AWS after this long [default: 10s].",
            envvar="QUOTACTL_CONNECT_TIMEOUT",
            show_envvar=True,
        ),
    ] = None,
    read_timeout: Annotated[
        float | None,
        Duration(
            "--read-timeout",
            help="Give up waiting for an AWS answer after this long [default: 30s].",
            envvar="QUOTACTL_READ_TIMEOUT",
            show_envvar=True,
        ),
    ] = None,
    max_attempts: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=1,
            max=50,
            help="Attempts per AWS call, retries of throttling/5xx/timeouts included "
            "[default: 10].",
            envvar="QUOTACTL_MAX_ATTEMPTS",
            show_envvar=True,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the versions of quotactl, Python, boto3 and botocore, and exit.",
        ),
    ] = False,
) -> None:
    """Validate, plan and apply quota-share configuration; run what-if simulations.

    Global options may also follow the command (`quotactl apply configs/demo -q`).
    """
    chosen = backend or "local"
    if chosen not in BACKENDS:
        raise UsageError(
            f"unknown backend {chosen!r}", hint=f"choose one of: {', '.join(BACKENDS)}"
        )
    # The Runtime run() was given (its streams and environment) takes the global options.
    runtime = ctx.ensure_object(Runtime)
    runtime.backend = chosen
    runtime.state_path = state or DEFAULT_STATE
    runtime.profile = profile
    runtime.region = region
    runtime.endpoint_url = endpoint_url
    # no-color.org: NO_COLOR counts when "present and not an empty string"
    runtime.color = not no_color and not runtime.environ.get("NO_COLOR")
    runtime.quiet = quiet
    runtime.debug = debug
    runtime.connect_timeout = _seconds("--connect-timeout", connect_timeout)
    runtime.read_timeout = _seconds("--read-timeout", read_timeout)
    runtime.max_attempts = max_attempts


def _seconds(option: str, seconds: float | None) -> float | None:
    """A timeout option's seconds, which must be more than zero; None when not given."""
    if seconds is not None and seconds <= 0:
        raise UsageError(f"{option} must be more than 0 seconds, not {seconds:g}s")
    return seconds


def _register_commands() -> None:
    from quotactl.cli import (
        completion_commands,
        config_commands,
        doctor_commands,
        export_commands,
        fmt_commands,
        govern_commands,
        history_commands,
        iam_commands,
        job_commands,
        local_commands,
        lock_commands,
        metrics_commands,
        plan_commands,
        simulate_commands,
        status_commands,
        submit_commands,
        trace_commands,
        tune_commands,
        usage_commands,
    )

    for module in (
        config_commands,
        fmt_commands,
        plan_commands,
        lock_commands,
        govern_commands,
        status_commands,
        metrics_commands,
        export_commands,
        history_commands,
        usage_commands,
        submit_commands,
        job_commands,
        iam_commands,
        simulate_commands,
        trace_commands,
        tune_commands,
        local_commands,
        doctor_commands,
        completion_commands,
    ):
        module.register(app)
    helptext.readable_commands(app)


_register_commands()


def run(argv: Sequence[str], runtime: Runtime | None = None) -> int:
    """Run the CLI on ``argv`` and return its exit code; the error boundary of the program.

    ``runtime`` is the environment commands run in (streams, environment variables); tests
    inject their own. The global options are set on it, and nothing here or below reads the
    process's own argv, streams or environment behind it.
    """
    from quotactl.cli.argv import hoist_global_options
    from quotactl.cli.tree import command_tree

    runtime = runtime or Runtime()
    completing = completion_commands.enable_if_requested(runtime.environ)
    command = command_tree(app, argv, completing=completing)
    if completing:
        completion_commands.offer_global_options(command)
    helptext.humanise(command)
    args = hoist_global_options(list(argv), command)
    try:
        result = command.main(args=args, prog_name="quotactl", standalone_mode=False, obj=runtime)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        if runtime.interrupts.done:  # everything was done: the interrupt came too late
            return ExitCode.OK
        print("interrupted", file=runtime.stderr)
        return ExitCode.INTERRUPTED
    except WorkInterruptedError as exc:
        report(exc, runtime, args)
        return ExitCode.INTERRUPTED
    except UsageError as exc:
        report(exc, runtime, args)
        return ExitCode.USAGE
    except QuotactlError as exc:
        report(exc, runtime, args)
        return ExitCode.ERROR
    except BrokenPipeError:  # `quotactl ... | head`: the reader has all it wanted
        discard_stdout()
        return ExitCode.OK
    except SystemExit as exc:  # typer turns a closed pipe into exit 1; it is not an error
        if isinstance(exc.__context__, BrokenPipeError):
            discard_stdout()
            return ExitCode.OK
        raise
    except Exception as exc:
        return unexpected(exc, runtime, args)
    runtime.interrupts.finish()
    return int(result) if isinstance(result, int) else ExitCode.OK


GC_YOUNG_THRESHOLD = 100_000
"""New objects between two runs of the cyclic garbage collector (Python's default: 700)."""


def _settle_process() -> None:
    """Settings for the whole process, made by the console script only (``run`` changes none,
    so tests and embedders keep theirs).

    * The garbage collector: start-up (typer, pydantic, the command modules) and config
      loading make tens of thousands of objects that live as long as the process and no
      garbage cycles, and the default threshold had the collector scan them over and over
      (4 % of ``validate``'s instructions on 1,000 shares). What is loaded by now is frozen
      out of its scans, and it runs after 100,000 new objects: a long ``simulate`` or
      ``local serve`` still collects, every few milliseconds of allocation.
    * pydantic plugins, which pydantic finds by reading every installed package's entry
      points (10 ms), are observability hooks for applications built on pydantic, not for
      checking quotactl's config; typer turns them off for its options too. A
      ``PYDANTIC_DISABLE_PLUGINS`` set by the user is kept.
    """
    import gc
    import os

    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, GC_YOUNG_THRESHOLD), middle, old)
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main() -> NoReturn:
    """Console-script entry point: the process's own settings, then ``run``."""
    _settle_process()
    # SIGTERM (a CI job cancelled) is handled like Ctrl-C: locks released, exit 130.
    runtime = Runtime()
    runtime.interrupts.install()
    code = run(sys.argv[1:], runtime)
    runtime.interrupts.finish()  # the exit code is decided: a late signal cannot change it
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        discard_stdout()
    sys.exit(code)
