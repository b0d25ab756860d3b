"""What several commands share: the configuration with its warnings on stderr, a server's
block, the terminal confirmation, and writing a ``--report`` page. Each call into the library
goes through ``quotactl.api``.
"""

from __future__ import annotations

import contextlib
import signal
from typing import TYPE_CHECKING, Any

from quotactl.errors import ApprovalRequiredError, NotConfirmedError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

    from quotactl.api import LoadedConfig
    from quotactl.cli.runtime import Runtime


def load(runtime: Runtime, paths: Sequence[Path] | None) -> LoadedConfig:
    """The configuration at ``paths`` (default ``configs/``); warnings go to stderr."""
    from quotactl import api

    loaded = api.load(paths)
    for warning in loaded.warnings:
        runtime.notice(str(warning))
    return loaded


def write_report(runtime: Runtime, path: Path, page: str) -> None:
    """Write a ``--report`` page whole, and say where on stderr (``-q`` hides it)."""
    from quotactl import api

    api.write_report(path, page)
    runtime.notice(f"quotactl: report written to {path} ({len(page.encode()) / 1024:,.0f} KiB)")


@contextlib.contextmanager
def serving(runtime: Runtime) -> Iterator[None]:
    """A server's block: SIGTERM stops it as Ctrl-C does, and either says ``stopped`` on
    stderr (``-q`` hides it) instead of failing."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    except KeyboardInterrupt:
        runtime.notice("stopped")
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def confirm(runtime: Runtime, question: str, *, auto_approve: bool, review: str) -> None:
    """Ask for ``yes`` on a terminal; refuse without one (CI) unless ``--auto-approve``.
    ``review`` is what to check before approving, as the hint says it (``the plan``)."""
    if auto_approve:
        return
    if not runtime.stdin.isatty():
        raise ApprovalRequiredError(
            "no terminal to confirm on and --auto-approve not given: nothing was changed",
            hint=f"review {review}, then re-run with --auto-approve",
        )
    print(f"\n{question}\n  Only 'yes' will be accepted.", file=runtime.stdout)
    print("  Enter a value: ", end="", file=runtime.stdout, flush=True)
    answer = runtime.stdin.readline().strip()
    if answer != "yes":
        raise NotConfirmedError("cancelled: the answer was not 'yes'; nothing was changed")
