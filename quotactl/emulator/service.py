"""The ``Emulator``: one emulated AWS Batch account over one state file.

Every way in (the botocore hook, ``local serve``, ``local advance``, tests) goes through
``handle`` or ``call``. A read (Describe*, List*, Get*) is one read transaction: it never
waits for a writer and changes nothing, unless an event is due, which a short write then
runs (``tick.step``: the due events only). A write is one write transaction: what fell due
before now, the handler, then the events due at now and a scheduling pass over the queues it
changed. A handler's failure rolls back its own writes only (a savepoint), never the events
that ran before it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import TYPE_CHECKING, Any, Self

from quotactl.core.backend import CLOCK_HEADER
from quotactl.core.engine import TIMING, Timing
from quotactl.emulator.account.arns import Account
from quotactl.emulator.errors import ServerException, ServiceError
from quotactl.emulator.faults import Faults, FaultSpec, parse_faults
from quotactl.emulator.handlers import HANDLERS, READ_ONLY
from quotactl.emulator.scheduling import tick as ticks
from quotactl.emulator.scheduling.context import EPSILON, Context
from quotactl.emulator.scheduling.engines import Engines
from quotactl.emulator.store import statefile
from quotactl.emulator.store.database import Clock, Store
from quotactl.emulator.variant import (
    CREATED,
    DEFAULT,
    LAG_SECONDS,
    LAGGED,
    STRICT,
    STRICT_LIST_LAG,
    STRICT_SUBMIT_TPS,
    after_read,
    check as check_variant,
    lagged,
    strict_answer,
)
from quotactl.emulator.wire import rest_json as wire
from quotactl.errors import QuotactlError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from types import TracebackType

    from quotactl.emulator.handlers import Handler

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
    """An AWS Batch quota-management account (docs/emulator.md) stored in ``state_path``.

    ``wall`` is the injected wall clock (the emulated clock only moves with ``advance`` or a
    ``speed`` set by ``local serve``). ``timing`` is how long a job is SCHEDULED and STARTING
    (default: 120 s and 30 s; the CLI passes ``QUOTACTL_EMULATOR_TIMING``'s). Jobs are scheduled by
    ``quotactl.core.engine``, one engine per job queue (``engines.py``). ``variant`` is
    ``"default"`` or ``"strict"`` (the reading least convenient to a client wherever AWS is
    silent: ``variant.py``); given, it is stored in the state file; None keeps the file's (a
    new file: default).
    """

    def __init__(
        self,
        state_path: Path,
        *,
        faults: FaultSpec | str | None = None,
        status_delay: float = 0.0,
        timing: Timing = TIMING,
        region: str = "us-east-1",
        variant: str | None = None,
        wall: Wall = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.state_path = state_path
        self.engines = Engines(timing)
        self.status_delay = status_delay
        self.wall = wall
        spec = faults if isinstance(faults, FaultSpec) else parse_faults(faults)
        self.store = Store(state_path, account_id=Account().account_id, region=region, wall=wall())
        try:
            self.variant = self._variant(variant)
        except BaseException:
            self.store.close()
            raise
        if self.variant == STRICT and not spec.submit_tps:
            spec = dataclasses.replace(spec, submit_tps=STRICT_SUBMIT_TPS)
        self.faults = Faults(spec, wall=wall, sleep=sleep)
        self.list_lag = self._list_lag(spec)
        self.router = wire.Router(HANDLERS)
        # Sessions built by quotactl.aws.session own an Emulator nobody closes explicitly.
        self._finalizer = weakref.finalize(self, self.store.close)
        self._accounts: dict[tuple[str, str], Account] = {}

    def _variant(self, wanted: str | None) -> str:
        """The state file's variant, first set to ``wanted`` if given."""
        if wanted is None:
            with self.store.transaction(write=False) as tx:
                return tx.variant()[0]
        check_variant(wanted)
        with self.store.transaction(write=False) as tx:
            stored = tx.variant()[0]
        if stored != wanted:
            with self.store.transaction() as tx:
                tx.set_variant(wanted, STRICT_LIST_LAG if wanted == STRICT else 0)
                if wanted == DEFAULT:
                    tx.set_lagging({})
        return wanted

    def _list_lag(self, spec: FaultSpec) -> int:
        """Listing reads a creation is left out of: the ``list_lag`` fault's, else the
        variant's (stored in the state file)."""
        if spec.list_lag is not None:
            return spec.list_lag
        with self.store.transaction(write=False) as tx:
            return tx.variant()[1] if self.variant == STRICT else 0

    # -- the two entry points --------------------------------------------------------------
    def handle(
        self, method: str, path: str, query: str, headers: Any, body: bytes
    ) -> wire.Response:
        """One HTTP request in AWS's wire format -> one response; raises only StateError."""
        rid = wire.request_id()
        try:
            operation, params = self.router.parse(method, path, query, body)
            fault = self.faults.before(operation)
            if fault is not None:
                raise fault
            result, now = self._answer(operation, params)
            lost = None if operation in READ_ONLY else self.faults.after_write(operation)
            if lost is not None:  # the write stands; its answer never reaches the client
                raise lost
            response = wire.ok(result, rid)
            # the emulated clock where AWS puts its own: the HTTP Date header
            response.headers["Date"] = formatdate(now, usegmt=True)
            if self.variant != STRICT:  # and to the millisecond, for clients that read it
                response.headers[CLOCK_HEADER] = str(round(now * 1000))
            return response
        except ServiceError as exc:
            return wire.error(exc, rid)
        except QuotactlError:  # the state file failed (locked, read-only, full): the caller's
            raise
        except Exception as exc:  # a bug must still look like AWS to the client
            return wire.error(ServerException(f"internal error in the emulator: {exc!r}"), rid)

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one operation on already-parsed members; raises ServiceError."""
        return wire.decoded(self._answer(operation, params)[0])

    def _answer(self, operation: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """``call``'s result, with a listing's stored items still as JSON texts, and the
        emulated time it was computed at."""
        self.router.validate(operation, params)  # botocore's input shape, before any handler
        handler = HANDLERS[operation]
        if operation not in READ_ONLY:
            return self._write(handler, params, operation)
        strict = self.variant == STRICT
        with self.store.transaction(write=False) as tx:
            account_id, region, clock, next_due = tx.account_row()
            now = clock.at(self.wall())
            behind = next_due is not None and next_due < now - EPSILON
            lags = bool(self.list_lag) and operation in LAGGED and bool(tx.lagging())
            if not behind and not lags:
                ctx = Context(tx, now, self._account(account_id, region), self.engines)
                ctx.status_delay, ctx.strict, ctx.variant = self.status_delay, True, self.variant
                result = handler(ctx, params)
        if behind or lags:  # a running clock left events behind: they happen before the read
            return self._write(handler, params, operation)
        if next_due is not None and next_due <= now + EPSILON:
            self._write(None, params)  # what is due now happens after the read has seen it
        if strict:
            result = strict_answer(operation, result)
        return result, now

    def _write(
        self, handler: Handler | None, params: dict[str, Any], operation: str = ""
    ) -> tuple[dict[str, Any], float]:
        result: dict[str, Any] = {}
        failure: ServiceError | None = None
        with self._writing() as ctx:
            if handler is not None:
                ctx.tx.db.execute("SAVEPOINT handler")
                try:
                    result = handler(ctx, params)
                except ServiceError as exc:
                    ctx.tx.db.execute("ROLLBACK TO handler")
                    self.engines.clear_queues()  # the handler's engine changes are undone
                    ctx.touched.clear()
                    ctx.queues, ctx.everything = set(), False
                    failure = exc
                ctx.tx.db.execute("RELEASE handler")
                if failure is None and self.list_lag:
                    result = self._lag(ctx, operation, result)
                if failure is None and self.variant == STRICT:
                    result = strict_answer(operation, result)
            ctx.strict = False
            ticks.step(ctx, stepped=True)
            now = ctx.now
        if failure is not None:
            raise failure
        return result, now

    def _lag(self, ctx: Context, operation: str, result: dict[str, Any]) -> dict[str, Any]:
        """Lagging listings (strict, or the ``list_lag`` fault): a creation joins the lagging
        list; a listing leaves out what lags, and brings each lagging item one read closer
        to being listed."""
        if operation in CREATED and result.get(CREATED[operation]):
            lagging = ctx.tx.lagging()
            lagging[result[CREATED[operation]]] = [self.list_lag, ctx.now + LAG_SECONDS]
            ctx.tx.set_lagging(lagging)
            return result
        lagging = ctx.tx.lagging()
        result = lagged(operation, result, lagging, ctx.now)
        if lagging and operation in LAGGED:
            ctx.tx.set_lagging(after_read(lagging, ctx.now))
        return result

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Context]:
        """One write transaction: engines synchronised, what fell due before now run first;
        at the end the next event time is stored. Any failure drops every engine."""
        try:
            with self.store.transaction() as tx:
                account_id, region, clock, next_due = tx.account_row()
                self.engines.begin(tx.generation())
                account = self._account(account_id, region)
                ctx = Context(tx, clock.at(self.wall()), account, self.engines, self.status_delay)
                ctx.strict, ctx.short_of = True, self.faults.short_of
                ctx.reject_repeated_token = self.faults.spec.reject_repeated_token
                ctx.variant = self.variant
                if next_due is not None and next_due < ctx.now - EPSILON:
                    ticks.catch_up(ctx)
                yield ctx
                # Still under the write lock, so the next writer of this process finds its
                # engines current (should COMMIT fail, the except clause drops them).
                self.engines.committed(tx.written(ticks.next_due(ctx)))
        except BaseException:
            self.engines.clear()
            raise

    @property
    def account_id(self) -> str:
        """The emulated account's ID."""
        with self.store.transaction(write=False) as tx:
            return tx.account_row()[0]

    # -- time ------------------------------------------------------------------------------
    def _account(self, account_id: str, region: str) -> Account:
        account = self._accounts.get((account_id, region))
        if account is None:
            account = self._accounts.setdefault((account_id, region), Account(account_id, region))
        return account

    def now(self) -> float:
        """The emulated time (epoch seconds)."""
        with self.store.transaction(write=False) as tx:
            return tx.account_row()[2].at(self.wall())

    def advance(self, seconds: float) -> Advanced:
        """Move the clock forward, running every job start, finish and status step on the way."""
        if seconds < 0:
            raise ValueError("the emulator's clock only moves forward")
        with self._writing() as ctx:
            ctx.strict = False
            before = ctx.now
            if before + seconds > CLOCK_HORIZON:
                raise UsageError(
                    f"cannot move the emulated clock {seconds:g}s forward: it would pass "
                    "the year 3000, and AWS timestamps after that are not representable",
                    hint="advance by less; `quotactl local reset` starts the clock over",
                )
            changes = ticks.advance(ctx, before + seconds)
            speed = ctx.tx.account_row()[2].speed
            ctx.tx.set_clock(Clock(ctx.now, self.wall(), speed))
        return Advanced(before, ctx.now, changes)

    def start_clock(self, at: float) -> None:
        """Set the clock of a fresh account to ``at`` (epoch seconds): ``local reset --at``
        starts an account at a chosen instant, so what happens in it never depends on the day
        it runs. Only for an account that holds nothing yet (``local.reset`` calls it on the
        account it has just created)."""
        with self._writing() as ctx:
            speed = ctx.tx.account_row()[2].speed
            ctx.tx.set_clock(Clock(at, self.wall(), speed))

    def set_speed(self, speed: float) -> None:
        """From now on the clock runs ``speed`` emulated seconds per wall second (0: stopped)."""
        if speed < 0:
            raise ValueError("speed cannot be negative")
        with self._writing() as ctx:
            ctx.tx.set_clock(Clock(ctx.now, self.wall(), speed))

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
    """Remove a state file and its companions; True if there was one. Refuses (StateError)
    while another process has it open."""
    return statefile.remove(path)
