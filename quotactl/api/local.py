"""The embedded emulated account: ``serve`` it over HTTP, ``advance`` its clock, ``reset`` it."""

from __future__ import annotations

import contextlib
import errno
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING
from quotactl.errors import PortInUseError, QuotactlError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime

    from quotactl.core.engine import Timing
    from quotactl.core.local import ClockAdvanced, StateReset
    from quotactl.emulator.server import EmulatorServer


def advance(
    state: Path | str,
    seconds: float,
    *,
    faults: str | None = None,
    timing: Timing = TIMING,
    variant: str | None = None,
) -> ClockAdvanced:
    """Move the emulator's clock forward ``seconds``, running the scheduler on the way (jobs
    start, finish and time out in order at their own times), with ``faults`` (such as
    ``capacity=0.3``) where they apply to what happens on the way."""
    from quotactl.core.local import ClockAdvanced
    from quotactl.emulator import Emulator

    with Emulator(Path(state), faults=faults, timing=timing, variant=variant) as emulator:
        moved = emulator.advance(seconds)
    return ClockAdvanced(moved.before, moved.now, moved.changes, seconds)


def reset(
    state: Path | str, *, variant: str | None = None, at: datetime | str | None = None
) -> StateReset:
    """Delete the emulator's state (every resource and job, and its clock); ``deleted`` is
    False when there was none. With ``variant``, a new account of that variant (``default``
    or ``strict``) is created in its place; with ``at`` (an instant, or ISO 8601 text), a new
    account whose clock starts at that instant (of ``variant``, else the default one)."""
    from quotactl.api.stack import instant
    from quotactl.core.local import StateReset
    from quotactl.emulator import Emulator, delete_state

    start = None if at is None else instant(at)
    deleted = delete_state(Path(state))
    if variant is not None or start is not None:
        with Emulator(Path(state), variant=variant) as emulator:
            if start is not None:
                emulator.start_clock(start.timestamp())
            variant = emulator.variant
    return StateReset(Path(state), deleted, variant, start)


@contextlib.contextmanager
def serve(
    state: Path | str,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    speed: float = 0.0,
    faults: str | None = None,
    status_delay: float = 0.0,
    timing: Timing = TIMING,
    variant: str | None = None,
) -> Iterator[EmulatorServer]:
    """An HTTP server for the emulator over ``state``, bound but not yet serving (call its
    ``serve_forever``); its clock runs at ``speed`` meanwhile. Closed on the way out."""
    from quotactl.emulator import Emulator
    from quotactl.emulator.server import EmulatorServer

    emulator = Emulator(
        Path(state), faults=faults, status_delay=status_delay, timing=timing, variant=variant
    )
    try:
        server = EmulatorServer(emulator, host, port)
    except OSError as exc:
        emulator.close()
        raise listen_error(host, port, exc) from exc
    try:
        emulator.set_speed(speed)
        yield server
    finally:
        server.server_close()
        if speed:
            emulator.set_speed(0)
        emulator.close()


def listen_error(host: str, port: int, exc: OSError) -> QuotactlError:
    if exc.errno == errno.EADDRINUSE:
        return PortInUseError(
            f"cannot listen on {host}:{port}: the port is in use",
            hint="stop what holds it, pick another --port, or --port 0 for a free one",
        )
    return UsageError(
        f"cannot listen on {host}:{port}: {exc.strerror or exc}",
        hint="--host takes a local address such as 127.0.0.1, ::1 or 0.0.0.0",
    )
