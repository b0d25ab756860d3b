"""The injected environment every command runs in (httpie's ``Environment`` pattern).

A ``Runtime`` is made once per invocation (``app.run`` makes one from the process's streams
and environment; tests inject their own) and the root callback sets the global options on it.
Commands read streams, environment variables, the clock and the terminal through it only,
reach AWS through its connect factory (``quotactl.api.connect`` unless a test gives another),
and nothing below ``cli`` reads ``os.environ``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import typer

from quotactl.api.connection import BACKENDS, DEFAULT_STATE
from quotactl.cli.interrupts import Interrupts

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    from quotactl.api import Account, EmulatorSettings, Retries
    from quotactl.render.console import Console
    from quotactl.render.views import Screen

__all__ = ["BACKENDS", "DEFAULT_STATE", "Runtime"]


def _connect(*args: Any, **kwargs: Any) -> Account:
    from quotactl.api import connect

    return connect(*args, **kwargs)


@dataclass
class Runtime:
    """Global options plus the streams, environment, clock and AWS connection a command uses."""

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
    """Seconds; None is the default of ``quotactl.api.connect``."""
    read_timeout: float | None = None
    max_attempts: int | None = None
    clock: Callable[[], float] = time.time
    """Wall-clock seconds (stamps, ages, the watch's refresh times)."""
    sleep: Callable[[float], None] = time.sleep
    connect_factory: Callable[..., Account] = _connect
    """Builds the account object (``quotactl.api.connect``'s signature)."""
    output: str = "text"
    """The command's output format (its -o), set when the command starts."""
    interrupts: Interrupts = field(default_factory=Interrupts)
    """Whether the command's work is done: an interrupt after that is no failure."""

    _noticed: bool = field(default=False, init=False, repr=False)

    @functools.cached_property
    def screen(self) -> Screen:
        """Where views write: the streams and the console settings of this invocation."""
        from quotactl.render.views import Screen

        return Screen(
            self.stdout,
            self.stderr,
            color=self.color,
            width=self.width,
            quiet=self.quiet,
            widen_pipes=not self.environ.get("COLUMNS"),
        )

    def console(self, *, stderr: bool = False) -> Console:
        """A rich console on stdout or stderr honouring --no-color/NO_COLOR."""
        return self.screen.console(stderr=stderr)

    @property
    def json_written(self) -> bool:
        """A JSON document went to stdout: the error boundary adds no error document after it."""
        return "screen" in self.__dict__ and self.screen.json_written

    @json_written.setter
    def json_written(self, value: bool) -> None:
        self.screen.json_written = value

    def write_json(self, document: object) -> None:
        """A command's JSON document on stdout (indented, one trailing newline)."""
        self.screen.write_json(document)

    def show(self, result: object, output: str | None = None) -> None:
        """Draw ``result`` with its view in ``output`` (default: the command's ``-o``); then,
        if the result says its command failed after all, raise that error."""
        from quotactl.render.views import failure_of, show

        show(self.screen, result, self.output if output is None else output)
        error = failure_of(result)
        if error is not None:
            raise error

    def notice(self, message: str) -> None:
        """One informational line on stderr, silenced by -q."""
        if not self.quiet:
            print(message, file=self.stderr)

    def warn(self, message: str) -> None:
        """A ``warning: ...`` line on stderr (not silenced by -q)."""
        print(f"warning: {message}", file=self.stderr)

    @functools.cached_property
    def settings(self) -> EmulatorSettings:
        """The emulator's settings in the environment, read once (on first use: parsing them
        imports the engine, which ``--help`` does not need)."""
        from quotactl.api import EmulatorSettings

        return EmulatorSettings.from_environ(self.environ)

    def connect(self, region: str | None = None, *, retries: Retries | None = None) -> Account:
        """The account the global options name; on the local backend, says so once on stderr.

        ``region`` is the configuration's ``platform.region``: ``--region`` wins over it, and
        it wins over the AWS environment's default.
        """
        local = self.backend == "local"
        if local and not self.endpoint_url:
            self._check_state_directory()
        if local and not self._noticed:
            self._noticed = True
            where = self.endpoint_url or f"state {self.state_path.absolute()}"
            self.notice(f"quotactl: using the local emulator ({where}); --backend aws for AWS")
        return self.connect_factory(
            self.backend,
            state=self.state_path,
            profile=self.profile,
            region=self.region or region,
            endpoint_url=self.endpoint_url,
            faults=self.settings.faults,
            timing=self.settings.timing,
            variant=self.settings.variant,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            max_attempts=self.max_attempts,
            retries=retries,
            notice=self.notice,
            clock=self.clock,
        )

    @contextlib.contextmanager
    def account(
        self, region: str | None = None, *, retries: Retries | None = None
    ) -> Iterator[Account]:
        """``connect``'s account for the block; closed after it, and with --debug the API calls
        it made are reported, however the block ends."""
        account = self.connect(region, retries=retries)
        try:
            yield account
        finally:
            self.report_calls(account)
            account.close()

    def report_calls(self, account: Account) -> None:
        """With --debug, the AWS API calls made, by operation, on stderr."""
        if self.debug:
            calls = account.calls
            detail = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
            print(f"quotactl: {sum(calls.values())} API calls ({detail})", file=self.stderr)

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


def runtime_of(ctx: typer.Context, output: str | None = None) -> Runtime:
    """The invocation's Runtime, with the global options set (commands call this first);
    ``output`` is the command's -o, when it has one."""
    runtime = ctx.find_object(Runtime)
    if runtime is None:  # pragma: no cover - run() always passes one
        raise RuntimeError("quotactl's commands run through quotactl.cli.app.run")
    if output is not None:
        runtime.output = str(output)
    return runtime
