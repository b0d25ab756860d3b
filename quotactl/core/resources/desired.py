"""Desired-state values: what the configuration says each AWS resource should look like.

These are produced by ``quotactl.config`` from YAML and consumed by ``diff`` (plan) and the
simulator. Field names follow the configuration language; AWS spellings live in ``aws/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import date

STACK_TAG = "quotactl:stack"
# On shares: the team that declared it, so `export` gives shares back to their teams.
TEAM_TAG = "quotactl:team"
MANAGED_TAGS = (STACK_TAG, TEAM_TAG)
GOVERNOR_TAGS = (
    "quotactl:governed",
    "quotactl:budget",
    "quotactl:base-priority",
    "quotactl:governor",
)
"""The tags ``govern`` keeps on what it changes (``core.govern.cycle``): plan, apply and export
neither show nor remove them, and configuration validation reserves their slots on shares (the
first two; ``quotactl:governor`` is on job queues, ``quotactl:base-priority`` on jobs)."""
UNLIMITED = -1


class Strategy(StrEnum):
    """A quota share's resource-sharing strategy (AWS ``resourceSharingConfiguration``)."""

    RESERVE = "RESERVE"
    LEND = "LEND"
    LEND_AND_BORROW = "LEND_AND_BORROW"

    @property
    def lends(self) -> bool:
        return self is not Strategy.RESERVE

    @property
    def borrows(self) -> bool:
        return self is Strategy.LEND_AND_BORROW


TIME_LIMIT_REASONS = (
    "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
    "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE",
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED",
)
"""The reasons a queue's jobStateTimeLimitActions may name for RUNNABLE jobs (AWS's list).

Here rather than beside the engine's statusReason texts, so that reading a config does not
import the scheduling engine."""


@dataclass(frozen=True)
class RunnableTimeout:
    """A queue's ``jobStateTimeLimitActions``: terminate jobs stuck RUNNABLE for a reason."""

    seconds: int
    reasons: tuple[str, ...]


DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""Day names as the config writes them, Monday first (``date.weekday()`` order)."""


@dataclass(frozen=True)
class When:
    """When a schedule window is in force, on the wall clock of ``timezone`` (IANA name).

    ``days`` (0 = Monday) and ``dates`` (inclusive ranges) name the day a window starts;
    ``hours`` are minutes from local midnight, ``(start, end)``: an end at or before the
    start runs into the next day. Empty ``days`` or ``dates`` mean every day; no ``hours``
    means the whole day."""

    days: tuple[int, ...] = ()
    hours: tuple[int, int] | None = None
    dates: tuple[tuple[date, date], ...] = ()
    timezone: str = "UTC"


@dataclass(frozen=True)
class Window:
    """A named schedule window: while it is in force it overrides the share's settings it
    names (None: the share's own). ``capacity`` is merged per instance type."""

    name: str
    when: When
    capacity: Mapping[str, int] | None = None
    strategy: Strategy | None = None
    borrow_limit: int | None = None
    in_share_preemption: bool | None = None
    enabled: bool | None = None


@dataclass(frozen=True)
class Budget:
    """A team's budget per UTC calendar period (``day``, ``week``, ``month``): instance-hours
    per type, counting ``used`` or ``borrowed`` hours; ``soft`` stops borrowing when over,
    ``hard`` also disables the team's shares."""

    every: str
    instance_hours: Mapping[str, float]
    counts: str = "used"
    over: str = "soft"


@dataclass(frozen=True)
class TeamSpec:
    """A team's policies (its shares are ``ShareSpec`` with ``team`` set)."""

    name: str
    budget: Budget | None = None
    max_priority: int | None = None


@dataclass(frozen=True)
class Aging:
    """A queue's aging: a waiting job's boost is ``min(max, step * floor((waited - after) /
    every))``, 0 before ``after`` (seconds); ``preempt`` lets it cause in-share preemption."""

    after: float
    every: float
    step: int = 1
    max: int = 50
    preempt: bool = False


def address_of(kind: str, name: str, queue: str | None = None) -> str:
    """A resource's address in plans: ``queue.training``, ``share.training/nlp``.

    The one spelling of addresses; ``observed.Ref`` and every spec use it.
    """
    return f"share.{queue}/{name}" if kind == "share" else f"{kind}.{name}"


@dataclass(frozen=True)
class EnvironmentSpec:
    name: str
    capacity: Mapping[str, int]
    enabled: bool = True
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return address_of("environment", self.name)


@dataclass(frozen=True)
class PolicySpec:
    """The FIFO quota-share scheduling policy implied by a queue (named ``<queue>-quota``)."""

    name: str
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def address(self) -> str:
        return address_of("policy", self.name)


@dataclass(frozen=True)
class QueueSpec:
    name: str
    environment: str
    policy: str
    priority: int = 1
    enabled: bool = True
    runnable_timeout: RunnableTimeout | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    aging: Aging | None = None

    @property
    def address(self) -> str:
        return address_of("queue", self.name)


@dataclass(frozen=True)
class ShareSpec:
    queue: str
    name: str
    capacity: Mapping[str, int]
    strategy: Strategy = Strategy.RESERVE
    borrow_limit: int = UNLIMITED  # percent of own capacity; -1 = unlimited; LEND_AND_BORROW only
    in_share_preemption: bool = False
    enabled: bool = True
    team: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    schedule: tuple[Window, ...] = ()
    """Windows overriding these settings while in force; the first that matches wins."""

    @property
    def address(self) -> str:
        return address_of("share", self.name, self.queue)


@dataclass(frozen=True)
class DesiredState:
    """Everything one stack's configuration declares; tags already include the stack tag."""

    stack: str
    region: str
    account_id: str | None
    environments: tuple[EnvironmentSpec, ...] = ()
    policies: tuple[PolicySpec, ...] = ()
    queues: tuple[QueueSpec, ...] = ()
    shares: tuple[ShareSpec, ...] = ()
    teams: tuple[TeamSpec, ...] = ()
    """Teams with a budget or a priority ceiling (the policies that are not on a resource)."""

    @property
    def specs(self) -> tuple[EnvironmentSpec | PolicySpec | QueueSpec | ShareSpec, ...]:
        """Every declared resource, in creation order (environments first, shares last)."""
        return (*self.environments, *self.policies, *self.queues, *self.shares)


def policy_name_for(queue: str) -> str:
    """The implied scheduling-policy name of a queue (``<queue>-quota``)."""
    return f"{queue}-quota"
