"""apply and the stack lock wait only through the clock and executor they are given."""

from __future__ import annotations

from concurrent import futures
from typing import TYPE_CHECKING, TypeVar

from quotactl.core.apply.executor import apply
from quotactl.core.apply.hooks import Status
from quotactl.core.plan.diff import make_plan
from tests.core.plan_support import MemoryBackend, desired, env, policy, queue, share

if TYPE_CHECKING:
    from collections.abc import Callable

T = TypeVar("T")


class FakeClock:
    """Time that passes only when someone sleeps."""

    def __init__(self) -> None:
        self.time = 1_000_000.0
        self.slept = 0.0

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        self.time += seconds
        self.slept += seconds


class InlineExecutor(futures.Executor):
    """Runs each call at once, on the caller's thread."""

    def submit(self, fn: Callable[..., T], /, *args: object, **kwargs: object) -> futures.Future[T]:
        future: futures.Future[T] = futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def test_a_resource_that_never_settles_times_out_on_the_injected_clock() -> None:
    backend = MemoryBackend()
    backend.seed(env(), policy(), queue())
    backend.delay = 10**9  # the new share stays CREATING for ever
    plan = make_plan(desired(env(), policy(), queue(), share("nlp")), backend)
    clock = FakeClock()
    result = apply(plan, backend, clock=clock, executor=lambda _workers: InlineExecutor())
    [outcome] = result.outcomes
    assert (outcome.address, outcome.status) == ("share.training/nlp", Status.FAILED)
    assert outcome.message == "timed out waiting for VALID and ENABLED (still CREATING)"
    assert 1800 < clock.slept < 1810  # the default wait_timeout, passed on the fake clock
    assert outcome.seconds == result.seconds == clock.slept
