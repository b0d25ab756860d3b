"""The stack lock's logic over an in-memory store whose create is atomic, like AWS's."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import pytest

from quotactl.core.apply.lock import (
    EXPIRES_TAG,
    HOLDER_TAG,
    ID_TAG,
    LockInfo,
    StateLock,
    acquire,
    held_by,
)
from quotactl.core.apply.system import SystemClock
from quotactl.errors import StateLockedError

if TYPE_CHECKING:
    from collections.abc import Mapping


class MemoryLockStore:
    """One name per stack; create is test-and-set under a mutex."""

    def __init__(self) -> None:
        self.locks: dict[str, dict[str, str]] = {}
        self.mutex = threading.Lock()
        self.creates = 0
        self.renewals = 0

    def create(self, stack: str, tags: Mapping[str, str]) -> bool:
        with self.mutex:
            self.creates += 1
            if stack in self.locks:
                return False
            self.locks[stack] = dict(tags)
            return True

    def read(self, stack: str) -> Mapping[str, str] | None:
        with self.mutex:
            found = self.locks.get(stack)
            return dict(found) if found is not None else None

    def renew(self, stack: str, tags: Mapping[str, str]) -> None:
        with self.mutex:
            self.renewals += 1
            self.locks[stack] = dict(tags)

    def delete(self, stack: str) -> None:
        with self.mutex:
            self.locks.pop(stack, None)


def test_of_many_contenders_exactly_one_holds_the_lock() -> None:
    store = MemoryLockStore()
    barrier = threading.Barrier(8)
    winners: list[str] = []
    refused: list[str] = []
    held: list[StateLock] = []

    def contend(n: int) -> None:
        barrier.wait()
        try:
            lock = acquire(store, "demo", holder=f"h{n}", command="apply")
        except StateLockedError:
            refused.append(f"h{n}")
            return
        winners.append(f"h{n}")
        held.append(lock)

    threads = [threading.Thread(target=contend, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) == 1
    assert len(refused) == 7
    assert store.locks["demo"][HOLDER_TAG] == winners[0]
    held[0].release()


def test_state_locked_names_the_holder_and_what_it_runs() -> None:
    store = MemoryLockStore()
    with (
        acquire(store, "demo", holder="alice@ci pid 7", command="apply"),
        pytest.raises(StateLockedError) as info,
    ):
        acquire(store, "demo", holder="bob", command="import")
    assert "stack demo is locked by alice@ci pid 7 (apply, since" in info.value.message
    assert info.value.hint is not None
    assert "--lock-timeout" in info.value.hint
    assert store.read("demo") is None  # released on leaving the block


def test_a_waiter_gets_the_lock_when_the_holder_releases_it() -> None:
    store = MemoryLockStore()
    first = acquire(store, "demo", holder="first", command="apply")
    sleeps: list[float] = []

    class Clock(SystemClock):
        def sleep(self, seconds: float) -> None:
            sleeps.append(seconds)
            if len(sleeps) == 3:
                first.release()

    second = acquire(store, "demo", holder="second", command="apply", timeout=60, clock=Clock())
    holder = held_by(store, "demo")
    assert holder is not None
    assert holder.lock_id == second.info.lock_id
    assert len(sleeps) == 3  # it polled until the release, then took the lock at once
    second.release()


def test_an_expired_lock_says_its_holder_probably_died_and_is_not_taken_over() -> None:
    store = MemoryLockStore()
    dead = LockInfo("demo", "dead1", "ghost", "apply", since=0.0, expires=60.0)
    store.locks["demo"] = dead.tags()
    with pytest.raises(StateLockedError) as info:
        acquire(store, "demo", holder="me", command="apply")
    assert "expired 1970-01-01T00:01:00Z" in info.value.message
    assert info.value.hint is not None
    assert "quotactl force-unlock" in info.value.hint
    assert store.locks["demo"][ID_TAG] == "dead1"


def test_the_holder_renews_the_expiry_while_it_runs() -> None:
    store = MemoryLockStore()
    lock = acquire(store, "demo", holder="me", command="apply", ttl=0.09)
    first = store.locks["demo"][EXPIRES_TAG]
    deadline = time.monotonic() + 10
    while store.renewals < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    lock.release()
    assert store.renewals >= 2
    assert first  # an ISO time; renewals rewrote it with later ones
    assert store.read("demo") is None


def test_an_exception_inside_releases_the_lock() -> None:
    store = MemoryLockStore()
    with pytest.raises(KeyboardInterrupt), acquire(store, "demo", holder="me", command="apply"):
        raise KeyboardInterrupt
    assert store.read("demo") is None


def test_release_leaves_a_lock_someone_else_took_after_a_force_unlock() -> None:
    store = MemoryLockStore()
    warnings: list[str] = []
    lock = acquire(store, "demo", holder="me", command="apply", on_warning=warnings.append)
    store.delete("demo")  # force-unlock
    other = acquire(store, "demo", holder="other", command="apply")
    lock.release()
    holder = held_by(store, "demo")
    assert holder is not None
    assert holder.lock_id == other.info.lock_id
    assert warnings
    assert "taken by someone else" in warnings[0]
    other.release()
