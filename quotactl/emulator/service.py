"""The ``Emulator``: one emulated AWS Batch account over one state file.

Every way in (the botocore hook, ``local serve``, ``local advance``, tests) goes through
``handle`` or ``call``; each request is one transaction: read the clock, run the due tick,
run the handler. A handler's failure rolls back its own writes only (a savepoint), never
the tick that ran before it.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from quotactl.emulator import tick as ticks
from quotactl.emulator import wire
from quotactl.emulator.arns import Account
from quotactl.emulator.context import Context
from quotactl.emulator.engine_scheduler import EngineScheduler
from quotactl.emulator.errors import ServerException, ServiceError
from quotactl.emulator.faults import Faults, FaultSpec, parse_faults
from quotactl.emulator.handlers import HANDLERS
from quotactl.emulator.store import Clock, Store, Tx
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from types import TracebackType

    from quotactl.emulator.scheduling import Scheduler

Wall = Callable[[], float]
CLOCK_HORIZON = 32_503_680_000.0
"""3000-01-01T00:00:00Z: ``local advance`` stops here, so every emulated timestamp (and a job's
end time after it) stays a datetime that botocore, ``json`` and the CLI can format."""


@dataclass(frozen=True)
class Advanced:
    """What ``local advance`` reports."""

    before: float
    now: float
    changes: int


class Emulator:
    """An AWS Batch quota-management account (SPEC §7) stored in ``state_path``.

    ``wall`` is the injected wall clock (the emulated clock only moves with ``advance`` or a
    ``speed`` set by ``local serve``); ``scheduler`` decides dispatch and preemption (by
    default the engine of SPEC §6, ``EngineScheduler``).
    """

    def __init__(
        self,
        state_path: Path,
        *,
        scheduler: Scheduler | None = None,
        faults: FaultSpec | str | None = None,
        status_delay: float = 0.0,
        region: str = "us-east-1",
        wall: Wall = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.state_path = state_path
        self.scheduler: Scheduler = scheduler or EngineScheduler()
        self.status_delay = status_delay
        self.wall = wall
        spec = faults if isinstance(faults, FaultSpec) else parse_faults(faults)
        self.faults = Faults(spec, wall=wall, sleep=sleep)
        self.store = Store(state_path, account_id=Account().account_id, region=region, wall=wall())
        self.router = wire.Router(HANDLERS)
        # Sessions built by quotactl.aws.session own an Emulator nobody closes explicitly.
        self._finalizer = weakref.finalize(self, self.store.close)
        self._accounts: dict[tuple[str, str], Account] = {}

    # -- the two entry points --------------------------------------------------------------
    def handle(
        self, method: str, path: str, query: str, headers: Any, body: bytes
    ) -> wire.Response:
        """One HTTP request in AWS's wire format -> one response (never raises)."""
        rid = wire.request_id()
        try:
            operation, params = self.router.parse(method, path, query, body)
            fault = self.faults.before(operation)
            if fault is not None:
                raise fault
            return wire.ok(self.call(operation, params), rid)
        except ServiceError as exc:
            return wire.error(exc, rid)
        except Exception as exc:  # a bug must still look like AWS to the client
            return wire.error(ServerException(f"internal error in the emulator: {exc!r}"), rid)

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one operation on already-parsed members; raises ServiceError."""
        self.router.validate(operation, params)  # botocore's input shape, before any handler
        handler = HANDLERS[operation]
        failure: ServiceError | None = None
        with self.store.transaction() as tx:
            ctx = self._context(tx)
            tx.db.execute("SAVEPOINT handler")
            try:
                result = handler(ctx, params)
            except ServiceError as exc:
                tx.db.execute("ROLLBACK TO handler")
                ctx.touched.clear()
                failure = exc
            tx.db.execute("RELEASE handler")
            ctx.strict = False
            if ticks.due(ctx, tx.account_row()[3]):
                ticks.tick(ctx)
        if failure is not None:
            raise failure
        return result

    # -- time ------------------------------------------------------------------------------
    def _context(self, tx: Tx) -> Context:
        account_id, region, clock, next_due = tx.account_row()
        account = self._accounts.get((account_id, region))
        if account is None:
            account = self._accounts.setdefault((account_id, region), Account(account_id, region))
        ctx = Context(
            tx, clock.at(self.wall()), account, self.scheduler, self.status_delay, strict=True
        )
        if ticks.due(ctx, next_due):
            ticks.catch_up(ctx)
        return ctx

    def now(self) -> float:
        """The emulated time (epoch seconds)."""
        with self.store.transaction() as tx:
            return self._context(tx).now

    def advance(self, seconds: float) -> Advanced:
        """Move the clock forward, running every job start, finish and status step on the way."""
        if seconds < 0:
            raise ValueError("the emulator's clock only moves forward")
        with self.store.transaction() as tx:
            ctx = self._context(tx)
            ctx.strict = False
            before = ctx.now
            if before + seconds > CLOCK_HORIZON:
                raise UsageError(
                    f"cannot move the emulated clock {seconds:g}s forward: it would pass "
                    "the year 3000, and AWS timestamps after that are not representable",
                    hint="advance by less; `quotactl local reset` starts the clock over",
                )
            changes = ticks.advance(ctx, before + seconds)
            speed = tx.account_row()[2].speed
            tx.set_clock(Clock(ctx.now, self.wall(), speed))
            changes += ticks.tick(ctx)
        return Advanced(before, ctx.now, changes)

    def set_speed(self, speed: float) -> None:
        """From now on the clock runs ``speed`` emulated seconds per wall second (0: stopped)."""
        if speed < 0:
            raise ValueError("speed cannot be negative")
        with self.store.transaction() as tx:
            now = self._context(tx).now
            tx.set_clock(Clock(now, self.wall(), speed))

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def delete_state(path: Path) -> bool:
    """Remove a state file and its WAL companions; True if there was one."""
    existed = path.exists()
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()
    return existed
