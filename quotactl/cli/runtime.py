"""The injected environment every command runs in (httpie's ``Environment`` pattern).

A ``Runtime`` is made once per invocation (``app.run`` makes one from the process's streams
and environment; tests inject their own) and the root callback sets the global options on it.
Commands read streams, environment variables and the terminal through it only, and nothing
below ``cli`` reads ``os.environ``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Mapping

    import boto3
    import typer
    from rich.console import Console

    from quotactl.aws.session import Target

DEFAULT_STATE = Path(".quotactl") / "emulator.db"
BACKENDS = ("local", "aws")


@dataclass
class Runtime:
    """Global options plus the streams and environment a command may use."""

    backend: str = "local"
    state_path: Path = DEFAULT_STATE
    profile: str | None = None
    region: str | None = None
    endpoint_url: str | None = None
    color: bool = True
    quiet: bool = False
    debug: bool = False
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    width: int | None = None
    connect_timeout: float | None = None
    """Seconds; None is the session's default (``quotactl.aws.session``)."""
    read_timeout: float | None = None
    max_attempts: int | None = None

    def console(self, *, stderr: bool = False) -> Console:
        """A rich console on stdout or stderr honouring --no-color/NO_COLOR."""
        from quotactl.render.console import make_console

        return make_console(
            self.stderr if stderr else self.stdout, color=self.color, width=self.width
        )

    _noticed: bool = field(default=False, init=False, repr=False)
    _sessions: dict[Target, boto3.Session] = field(default_factory=dict, init=False, repr=False)

    json_written: bool = field(default=False, init=False, repr=False)
    """A JSON document went to stdout: the error boundary adds no error document after it."""

    def write_json(self, document: object) -> None:
        """A command's JSON document on stdout (indented, one trailing newline)."""
        import json

        self.stdout.write(json.dumps(document, indent=2) + "\n")
        self.json_written = True

    def notice(self, message: str) -> None:
        """One informational line on stderr, silenced by -q."""
        if not self.quiet:
            print(message, file=self.stderr)

    def target(self, region: str | None = None) -> Target:
        """Where AWS calls go; on the local backend, says so once on stderr.

        ``region`` is the configuration's ``platform.region``: ``--region`` wins over it, and
        it wins over the AWS environment's default.
        """
        from quotactl.aws.session import Target

        target = Target(
            backend=self.backend,
            state_path=self.state_path,
            profile=self.profile,
            region=self.region or region,
            endpoint_url=self.endpoint_url,
            faults=self.environ.get("QUOTACTL_EMULATOR_FAULTS"),
            **self._limits(),
        )
        if target.backend == "local" and not self.endpoint_url:
            self._check_state_directory()
        if target.backend == "local" and not self._noticed:
            self._noticed = True
            where = self.endpoint_url or f"state {self.state_path.absolute()}"
            self.notice(f"quotactl: using the local emulator ({where}); --backend aws for AWS")
        return target

    def _limits(self) -> dict[str, Any]:
        limits = {
            "connect_timeout": self.connect_timeout,
            "read_timeout": self.read_timeout,
            "max_attempts": self.max_attempts,
        }
        return {k: v for k, v in limits.items() if v is not None}

    def _check_state_directory(self) -> None:
        """Only the default state location is created; a --state elsewhere must have its
        directory already, so a typo in a path never leaves a stray tree of folders."""
        folder = self.state_path.parent
        if self.state_path == DEFAULT_STATE or folder.is_dir():
            return
        from quotactl.errors import StateError

        raise StateError(
            f"the directory of --state {self.state_path} does not exist",
            hint=f"create {folder} first, or choose another --state (QUOTACTL_STATE)",
        )

    def session(self, target: Target) -> boto3.Session:
        """One boto3 session per target and invocation: the account guard's STS client and
        the Batch client share credentials, so an assume-role profile asks for MFA once."""
        if target not in self._sessions:
            from quotactl.aws.session import make_session

            self._sessions[target] = make_session(target)
        return self._sessions[target]


def runtime_of(ctx: typer.Context) -> Runtime:
    """The invocation's Runtime, with the global options set (commands call this first)."""
    runtime = ctx.find_object(Runtime)
    if runtime is None:  # pragma: no cover - run() always passes one
        raise RuntimeError("quotactl's commands run through quotactl.cli.app.run")
    return runtime
