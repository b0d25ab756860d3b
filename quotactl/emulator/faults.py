"""Fault injection for tests and drills: ``latency_ms=20,throttle=0.2,error=0.05,seed=7``.

Each request draws once, before its handler runs, so a fault never half-applies a write:
``throttle`` is the probability of HTTP 429 TooManyRequestsException, ``error`` of HTTP 500
ServerException, ``latency_ms`` is added wall-clock delay per request. With ``seed`` the
sequence of outcomes is the same on every run for the same sequence of requests.
``submit_tps=5`` turns on AWS's 5-per-second SubmitServiceJob limit (a token bucket on the
wall clock, per emulator process; off by default so tests and local scripts stay fast).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.emulator.errors import ServerException, ServiceError, TooManyRequestsException
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

KEYS = ("latency_ms", "throttle", "error", "seed", "submit_tps")


@dataclass(frozen=True)
class FaultSpec:
    latency_ms: float = 0.0
    throttle: float = 0.0
    error: float = 0.0
    seed: int | None = None
    submit_tps: float = 0.0

    @property
    def active(self) -> bool:
        return bool(self.latency_ms or self.throttle or self.error or self.submit_tps)


def parse_faults(text: str | None) -> FaultSpec:
    """Parse ``key=value,...``; unknown keys and out-of-range values are usage errors."""
    if not text or not text.strip():
        return FaultSpec()
    values: dict[str, float] = {}
    for part in text.split(","):
        key, sep, raw = part.strip().partition("=")
        if not sep or key not in KEYS:
            raise UsageError(
                f"invalid fault {part.strip()!r}",
                hint=f"use key=value pairs with keys {', '.join(KEYS)}, "
                "e.g. latency_ms=20,throttle=0.2,error=0.05,seed=7",
            )
        try:
            values[key] = float(raw)
        except ValueError:
            raise UsageError(f"fault {key} needs a number, got {raw!r}") from None
    for key in ("throttle", "error"):
        if not 0 <= values.get(key, 0) <= 1:
            raise UsageError(f"fault {key} is a probability between 0 and 1, got {values[key]}")
    if values.get("throttle", 0) + values.get("error", 0) > 1:
        raise UsageError("fault probabilities throttle + error add up to more than 1")
    if values.get("latency_ms", 0) < 0 or values.get("submit_tps", 0) < 0:
        raise UsageError("latency_ms and submit_tps cannot be negative")
    seed = values.pop("seed", None)
    return FaultSpec(**values, seed=None if seed is None else int(seed))


class Faults:
    """Decides each request's fate; thread-safe, deterministic under a seed."""

    def __init__(
        self,
        spec: FaultSpec,
        *,
        wall: Callable[[], float],
        sleep: Callable[[float], None],
    ) -> None:
        self.spec = spec
        self._wall = wall
        self._sleep = sleep
        self._random = random.Random(spec.seed)
        self._lock = threading.Lock()
        self._tokens = spec.submit_tps
        self._filled_at = wall()
        self.injected: Counter[str] = Counter()

    def before(self, operation: str) -> ServiceError | None:
        """The error to answer with instead of running the handler, or None."""
        if not self.spec.active:
            return None
        with self._lock:
            draw = self._random.random()
            fault: ServiceError | None = None
            if draw < self.spec.throttle:
                fault = TooManyRequestsException("Too Many Requests (injected fault)")
            elif draw < self.spec.throttle + self.spec.error:
                fault = ServerException("Internal server error (injected fault)")
            elif operation == "SubmitServiceJob" and self.spec.submit_tps and not self._take():
                fault = TooManyRequestsException(
                    f"Too Many Requests: SubmitServiceJob is limited to {self.spec.submit_tps:g} "
                    "requests per second"
                )
            if fault is not None:
                self.injected[fault.code] += 1
        if self.spec.latency_ms:
            self._sleep(self.spec.latency_ms / 1000)
        return fault

    def _take(self) -> bool:
        now = self._wall()
        rate = self.spec.submit_tps
        self._tokens = min(rate, self._tokens + (now - self._filled_at) * rate)
        self._filled_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
