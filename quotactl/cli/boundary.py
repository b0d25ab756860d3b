"""What the error boundary of ``run`` prints: the error, its JSON document, and nothing more
once the reader of stdout has gone (``quotactl ... | head``)."""

from __future__ import annotations

import os
import sys
import traceback
from typing import TYPE_CHECKING

from quotactl.cli.argv import is_click_error, usage_error, wants_json
from quotactl.cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from quotactl.cli.runtime import Runtime
    from quotactl.errors import QuotactlError


def report(exc: QuotactlError, runtime: Runtime, args: list[str]) -> None:
    """The error on stderr; with ``-o json`` also the error document on stdout, unless the
    command already printed its own document."""
    from quotactl.render.errors import print_error

    if runtime.debug:
        traceback.print_exc(file=runtime.stderr)
    print_error(exc, runtime.stderr)
    if wants_json(args) and not runtime.json_written:
        import json

        from quotactl.render.errors import error_document

        runtime.stdout.write(json.dumps(error_document(exc), indent=2) + "\n")


def unexpected(exc: Exception, runtime: Runtime, args: list[str]) -> int:
    """The exit code of an exception that is no ``QuotactlError``: click's usage errors (an
    unknown option, a bad value) are usage errors; anything else is quotactl's own bug."""
    if is_click_error(exc):
        error = usage_error(exc)
        if error is None:  # no arguments at all: the help, as click shows it
            ctx = getattr(exc, "ctx", None)
            print(ctx.get_help() if ctx is not None else exc, file=runtime.stderr)
        else:
            report(error, runtime, args)
        return ExitCode.USAGE
    if runtime.debug:
        traceback.print_exc(file=runtime.stderr)
    else:
        print(
            "error[internal]: quotactl hit an unexpected error\n"
            "  hint: re-run with --debug for the traceback and report it",
            file=runtime.stderr,
        )
    return ExitCode.ERROR


def discard_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass
