"""The embedded emulated account: ``serve`` it over HTTP, ``advance`` its clock, ``reset`` it."""

from __future__ import annotations

import contextlib
import errno
import math
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.engine import TIMING
from quotactl.errors import PortInUseError, QuotactlError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

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
    govern: Sequence[Path] | None = None,
    govern_every: float = 300.0,
    allow_disruption: bool = False,
    log: Path | None = None,
) -> ClockAdvanced:
    """Move the emulator's clock forward ``seconds``, running the scheduler on the way (jobs
    start, finish and time out in order at their own times), with ``faults`` (such as
    ``capacity=0.3``) where they apply to what happens on the way. With ``govern`` (a
    configuration's paths), ``quotactl govern``'s cycle runs in process at every cadence tick
    of emulated time (``govern_every`` seconds), appending its actions to ``log``."""
    from quotactl.core.local import ClockAdvanced
    from quotactl.emulator import Emulator

    if govern is not None:
        return _governed(
            Path(state),
            seconds,
            govern,
            every=govern_every,
            allow_disruption=allow_disruption,
            log=log,
            faults=faults,
            timing=timing,
            variant=variant,
        )
    with Emulator(Path(state), faults=faults, timing=timing, variant=variant) as emulator:
        moved = emulator.advance(seconds)
    return ClockAdvanced(moved.before, moved.now, moved.changes, seconds)


def ticks(before: float, after: float, every: float) -> list[float]:
    """The governor's cadence ticks in ``[before, after)``: the instants (epoch seconds) that
    are whole multiples of ``every``, so that consecutive advances run each tick once and a
    replay whose second 0 is on the grid ticks at the same instants."""
    first = math.ceil(before / every) * every
    count = max(0, math.ceil((after - first) / every))
    return [first + i * every for i in range(count)]


def _governed(
    state: Path,
    seconds: float,
    govern: Sequence[Path],
    *,
    every: float,
    allow_disruption: bool,
    log: Path | None,
    faults: str | None,
    timing: Timing,
    variant: str | None,
) -> ClockAdvanced:
    """``advance`` with a governor cycle, in process, at every cadence tick on the way: the
    clock moves to the tick (what falls due happens), then the cycle runs at the tick."""
    from datetime import UTC

    from quotactl.api.config import load
    from quotactl.api.connection import connect
    from quotactl.api.governor import govern_cycle
    from quotactl.core.local import ClockAdvanced
    from quotactl.emulator import Emulator

    if every <= 0:
        raise UsageError("--govern-every must be longer than 0s", hint="the default is 5m")
    desired = load(list(govern)).desired
    changes = cycles = actions = 0
    with (
        Emulator(state, faults=faults, timing=timing, variant=variant) as emulator,
        connect("local", state=state, faults=faults, timing=timing, variant=variant) as account,
    ):
        start = emulator.now()
        for tick in ticks(start, start + seconds, every):
            changes += emulator.advance(tick - emulator.now()).changes
            done = govern_cycle(
                account,
                desired,
                now=datetime.fromtimestamp(tick, UTC),
                allow_disruption=allow_disruption,
                log=log,
            )
            actions += len(done.outcomes)
            cycles += 1
        changes += emulator.advance(start + seconds - emulator.now()).changes
        now = emulator.now()
    return ClockAdvanced(start, now, changes, seconds, cycles=cycles, actions=actions)


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
