"""One apply (or import) per stack at a time: a lock that lives in the account itself.

The lock is one resource whose name the account keeps unique, created atomically by the
first writer (``LockStore.create`` answers False when the name is taken) and deleted when it
is done; its tags say who holds it (holder, command, since, expires). The holder renews the
expiry while it runs, so an expired lock means its holder died: ``force-unlock`` clears it.
An expired lock is never taken over automatically (two writers could both decide to), the
same choice as Terraform's. ``quotactl.aws.lock`` implements the store with AWS Batch.
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from quotactl.core.apply.system import SYSTEM_CLOCK
from quotactl.errors import StateLockedError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import TracebackType

    from quotactl.core.apply.system import Clock

LOCK_TAG = "quotactl:lock"
"""Marks the lock resource (its value is the stack); plan, export and status never show it."""
ID_TAG = "quotactl:lock-id"
HOLDER_TAG = "quotactl:lock-holder"
COMMAND_TAG = "quotactl:lock-command"
SINCE_TAG = "quotactl:lock-since"
EXPIRES_TAG = "quotactl:lock-expires"
DEFAULT_TTL = 300.0
"""Seconds a lock stays valid without renewal; the holder renews it every third of that."""
_TAG_VALUE_UNSAFE = re.compile(r"[^\w .:/=+\-@]")  # AWS's tag value alphabet


class LockStore(Protocol):
    """Where the lock lives: one resource per stack, its tags carrying ``LockInfo``."""

    def create(self, stack: str, tags: Mapping[str, str]) -> bool:
        """Create the stack's lock atomically; False if it exists already."""
        ...

    def read(self, stack: str) -> Mapping[str, str] | None:
        """The lock's tags, or None when nobody holds it."""
        ...

    def renew(self, stack: str, tags: Mapping[str, str]) -> None: ...

    def delete(self, stack: str) -> None:
        """Remove the lock (no error if it is already gone)."""
        ...


@dataclass(frozen=True)
class LockInfo:
    """Who holds a stack's lock, for what, since when and until when (epoch seconds)."""

    stack: str
    lock_id: str
    holder: str
    command: str
    since: float
    expires: float

    def tags(self) -> dict[str, str]:
        return {
            LOCK_TAG: self.stack,
            ID_TAG: self.lock_id,
            HOLDER_TAG: tag_value(self.holder),
            COMMAND_TAG: tag_value(self.command),
            SINCE_TAG: _iso(self.since),
            EXPIRES_TAG: _iso(self.expires),
        }

    @classmethod
    def from_tags(cls, stack: str, tags: Mapping[str, str]) -> LockInfo:
        return cls(
            stack=tags.get(LOCK_TAG, stack),
            lock_id=tags.get(ID_TAG, "?"),
            holder=tags.get(HOLDER_TAG, "unknown"),
            command=tags.get(COMMAND_TAG, "unknown"),
            since=_epoch(tags.get(SINCE_TAG)),
            expires=_epoch(tags.get(EXPIRES_TAG)),
        )

    def describe(self, now: float) -> str:
        state = "expired" if now > self.expires else "expires"
        return (
            f"{self.holder} ({self.command}, since {_iso(self.since)}, "
            f"{state} {_iso(self.expires)}, lock id {self.lock_id})"
        )


@dataclass(frozen=True)
class LockHolding:
    """Who held ``stack``'s lock (None: nobody) when read at ``now`` (epoch seconds)."""

    stack: str
    holder: LockInfo | None
    now: float


@dataclass(frozen=True)
class LockCleared:
    """``force-unlock`` removed ``stack``'s lock."""

    stack: str


def tag_value(text: str) -> str:
    """``text`` in AWS's tag-value alphabet and length."""
    return _TAG_VALUE_UNSAFE.sub("-", text)[:256]


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _epoch(text: str | None) -> float:
    try:
        return datetime.strptime(text or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return 0.0


class StateLock:
    """A held lock: renews itself until ``release`` (a context manager releases on any exit,
    Ctrl-C and exceptions included)."""

    def __init__(
        self,
        store: LockStore,
        info: LockInfo,
        *,
        ttl: float,
        clock: Clock,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.store, self.info, self.ttl, self.clock = store, info, ttl, clock
        self.on_warning = on_warning or (lambda _message: None)
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew, name="quotactl-lock", daemon=True)
        self._renewer.start()

    def _renew(self) -> None:
        while not self._stop.wait(self.ttl / 3):
            info = replace(self.info, expires=self.clock.now() + self.ttl)
            try:
                self.store.renew(self.info.stack, info.tags())
                self.info = info
            except Exception as exc:  # the next renewal may succeed; the expiry says the rest
                self.on_warning(f"could not renew the lock of stack {self.info.stack}: {exc}")

    def release(self) -> None:
        """Delete the lock if it is still ours (a force-unlock may have taken it away)."""
        self._stop.set()
        if self._renewer is not threading.current_thread():
            self._renewer.join()
        current = self.store.read(self.info.stack)
        if current is None:
            return
        if current.get(ID_TAG) != self.info.lock_id:
            self.on_warning(
                f"the lock of stack {self.info.stack} was taken by someone else meanwhile "
                "(force-unlock?); it was left alone"
            )
            return
        self.store.delete(self.info.stack)

    def __enter__(self) -> StateLock:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.release()
        except Exception as exc:
            if kind is None:
                raise
            self.on_warning(f"could not release the lock of stack {self.info.stack}: {exc}")


def acquire(
    store: LockStore,
    stack: str,
    *,
    holder: str,
    command: str,
    timeout: float = 0.0,
    ttl: float = DEFAULT_TTL,
    clock: Clock = SYSTEM_CLOCK,
    on_warning: Callable[[str], None] | None = None,
) -> StateLock:
    """Take the stack's lock, waiting up to ``timeout`` seconds; ``state-locked`` otherwise.

    ``clock`` gives the times written into the lock's tags and passes the waits between tries.
    """
    deadline = clock.now() + timeout
    delay = 0.25
    vanished = 0
    while True:
        now = clock.now()
        info = LockInfo(stack, secrets.token_hex(8), holder, command, now, now + ttl)
        if store.create(stack, info.tags()):
            return StateLock(store, info, ttl=ttl, clock=clock, on_warning=on_warning)
        current = store.read(stack)
        if current is None and vanished < 5:
            vanished += 1
            continue  # released between our create and our read: try again at once
        if current is None:
            raise StateLockedError(f"the lock of stack {stack} cannot be created or read")
        remaining = deadline - clock.now()
        if remaining <= 0:
            raise _locked(LockInfo.from_tags(stack, current), clock.now(), timeout)
        clock.sleep(min(delay, remaining))
        delay = min(delay * 2, 5.0)


def _locked(info: LockInfo, now: float, timeout: float) -> StateLockedError:
    waited = f" after waiting {timeout:g}s" if timeout > 0 else ""
    if now > info.expires:
        hint = (
            "its holder stopped renewing it, so it probably died; if no apply is running, "
            "clear it with `quotactl force-unlock`"
        )
    else:
        hint = "wait for it to finish, or give --lock-timeout DURATION to wait for it"
    return StateLockedError(
        f"stack {info.stack} is locked{waited} by {info.describe(now)}; nothing was changed",
        hint=hint,
    )


def force_unlock(store: LockStore, stack: str) -> None:
    """Delete the stack's lock whoever holds it (for a holder that died)."""
    store.delete(stack)


def held_by(store: LockStore, stack: str) -> LockInfo | None:
    """Who holds the stack's lock now, if anyone."""
    current = store.read(stack)
    return None if current is None else LockInfo.from_tags(stack, current)
