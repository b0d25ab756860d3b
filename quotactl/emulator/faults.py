"""Fault injection for tests and drills: ``latency_ms=20,throttle=0.2,error=0.05,seed=7``.

Each request draws once, before its handler runs, so a fault never half-applies a write:
``throttle`` is the probability of HTTP 429 TooManyRequestsException, ``error`` of HTTP 500
ServerException, ``latency_ms`` is added wall-clock delay per request. With ``seed`` the
sequence of outcomes is the same on every run for the same sequence of requests.
``submit_tps=5`` turns on AWS's 5-per-second SubmitServiceJob limit (a token bucket on the
wall clock, per emulator process; off by default so tests and local scripts stay fast).

``capacity=P`` is SageMaker running short of instances: each attempt that would go from
SCHEDULED to STARTING fails with probability P instead, as AWS reports it
(``CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY``; the scheduling side is
``quotactl.emulator.scheduling.jobs.capacity_failed``). ``capacity=ml.p5.48xlarge:0.5``
limits it to one instance type and may be repeated, one per type; a bare ``capacity=P`` is
every other type. A job with several types fails if any of them draws short.

``lose_answer=P`` loses the answer of a write with probability P: the handler has run and its
effect stands, but the client gets HTTP 500 ServerException instead (a connection dropped on
the way back), so botocore retries it. ``lose_every=N`` loses the answer of every Nth write
that succeeded (deterministic: ``lose_every=2`` every second one). ``reject_repeated_token=1``
answers a SubmitServiceJob that repeats a clientToken with ClientException, AWS's model text's
reading, instead of the first job (the default reading, AWS's idempotency docs').

``refuse=UpdateQuotaShare`` answers every request of that operation with ClientException (AWS
refusing it: not retried); repeat the key for more operations.

``list_lag=N`` makes listings lag writes, as AWS's eventually consistent reads may: a created
resource or submitted job is left out of the next N listing reads (DescribeJobQueues,
ListServiceJobs and the other listings of the strict variant's table), counted in the state
file. It replaces the variant's own lag (strict: 2; default: none) for this process;
``list_lag=0`` turns it off.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.emulator.errors import (
    ClientException,
    ServerException,
    ServiceError,
    TooManyRequestsException,
)
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

KEYS = (
    "latency_ms",
    "throttle",
    "error",
    "seed",
    "submit_tps",
    "capacity",
    "lose_answer",
    "lose_every",
    "reject_repeated_token",
    "refuse",
    "list_lag",
)
EVERY_TYPE = ""
"""The instance type of a bare ``capacity=P``: every type not named on its own."""


@dataclass(frozen=True)
class FaultSpec:
    latency_ms: float = 0.0
    throttle: float = 0.0
    error: float = 0.0
    seed: int | None = None
    submit_tps: float = 0.0
    capacity: tuple[tuple[str, float], ...] = ()
    """(instance type, probability) of an insufficient-capacity start; ``EVERY_TYPE`` for all."""
    lose_answer: float = 0.0
    lose_every: int = 0
    reject_repeated_token: bool = False
    refuse: tuple[str, ...] = ()
    """Operations answered with ClientException every time."""
    list_lag: int | None = None
    """Listing reads a creation is left out of; None: the variant's."""

    def capacity_of(self, instance_type: str) -> float:
        """The probability that SageMaker has no ``instance_type`` for an attempt."""
        found = dict(self.capacity)
        return found.get(instance_type, found.get(EVERY_TYPE, 0.0))

    @property
    def active(self) -> bool:
        return bool(
            self.latency_ms or self.throttle or self.error or self.submit_tps or self.refuse
        )


def parse_faults(text: str | None) -> FaultSpec:
    """Parse ``key=value,...``; unknown keys and out-of-range values are usage errors."""
    if not text or not text.strip():
        return FaultSpec()
    values: dict[str, float] = {}
    capacity: dict[str, float] = {}
    refuse: list[str] = []
    for part in text.split(","):
        key, sep, raw = part.strip().partition("=")
        if not sep or key not in KEYS:
            raise UsageError(
                f"invalid fault {part.strip()!r}",
                hint=f"use key=value pairs with keys {', '.join(KEYS)}, "
                "e.g. latency_ms=20,throttle=0.2,error=0.05,seed=7",
            )
        if key == "refuse":
            if not raw.strip().isalpha():
                raise UsageError(f"fault refuse names an operation, got {raw!r}")
            refuse.append(raw.strip())
            continue
        if key == "capacity":
            instance_type, probability = _capacity(raw)
            capacity[instance_type] = probability
            continue
        try:
            values[key] = float(raw)
        except ValueError:
            raise UsageError(f"fault {key} needs a number, got {raw!r}") from None
    for key in ("throttle", "error", "lose_answer"):
        if not 0 <= values.get(key, 0) <= 1:
            raise UsageError(f"fault {key} is a probability between 0 and 1, got {values[key]}")
    if values.get("throttle", 0) + values.get("error", 0) > 1:
        raise UsageError("fault probabilities throttle + error add up to more than 1")
    if values.get("latency_ms", 0) < 0 or values.get("submit_tps", 0) < 0:
        raise UsageError("latency_ms and submit_tps cannot be negative")
    counts = {}
    for key in ("lose_every", "reject_repeated_token", "list_lag"):
        if key in values:
            number = values.pop(key)
            if number < 0 or number != int(number):
                raise UsageError(f"fault {key} is a whole number of at least 0, got {number:g}")
            counts[key] = int(number)
    seed = values.pop("seed", None)
    return FaultSpec(
        **values,
        seed=None if seed is None else int(seed),
        capacity=tuple(capacity.items()),
        lose_every=counts.get("lose_every", 0),
        reject_repeated_token=bool(counts.get("reject_repeated_token", 0)),
        refuse=tuple(refuse),
        list_lag=counts.get("list_lag"),
    )


def _capacity(raw: str) -> tuple[str, float]:
    """``P`` or ``INSTANCE_TYPE:P`` of a ``capacity=`` fault."""
    instance_type, sep, number = raw.strip().rpartition(":")
    if sep and not instance_type.startswith("ml."):
        raise UsageError(
            f"fault capacity names {instance_type!r}, not a SageMaker instance type",
            hint="e.g. capacity=ml.p5.48xlarge:0.5, or capacity=0.3 for every type",
        )
    try:
        probability = float(number)
    except ValueError:
        raise UsageError(f"fault capacity needs a probability, got {number!r}") from None
    if not 0 <= probability <= 1:
        raise UsageError(f"fault capacity is a probability between 0 and 1, got {probability}")
    return (instance_type if sep else EVERY_TYPE), probability


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
        # Its own sequence: whether a start finds capacity depends on the starts alone.
        self._capacity = random.Random(spec.seed)
        self._lost = random.Random(spec.seed)  # and whether an answer is lost, on the writes
        self._writes = 0
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
            if operation in self.spec.refuse:
                fault = ClientException(f"{operation} refused (injected fault)")
            elif draw < self.spec.throttle:
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

    def after_write(self, operation: str) -> ServiceError | None:
        """The error the client gets instead of the answer of a write that succeeded (its
        effect stands), or None: ``lose_answer`` and ``lose_every``."""
        if not (self.spec.lose_answer or self.spec.lose_every):
            return None
        with self._lock:
            self._writes += 1
            lost = bool(self.spec.lose_every) and self._writes % self.spec.lose_every == 0
            if self.spec.lose_answer and self._lost.random() < self.spec.lose_answer:
                lost = True
            if not lost:
                return None
            self.injected["answer-lost"] += 1
        return ServerException(f"{operation}: the answer was lost (injected fault)")

    def short_of(self, instances: Mapping[str, int]) -> bool:
        """Whether SageMaker has too few instances for an attempt asking for ``instances``
        (one draw per instance type with a ``capacity`` fault)."""
        if not self.spec.capacity:
            return False
        with self._lock:
            short = False
            for instance_type in sorted(instances):
                probability = self.spec.capacity_of(instance_type)
                if probability and self._capacity.random() < probability:
                    short = True
            if short:
                self.injected["CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"] += 1
        return short

    def _take(self) -> bool:
        now = self._wall()
        rate = self.spec.submit_tps
        self._tokens = min(rate, self._tokens + (now - self._filled_at) * rate)
        self._filled_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False
