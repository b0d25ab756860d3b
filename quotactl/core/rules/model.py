"""Rules as values: what an organisation's quota policy says, and what each rule found.

A ``Rule`` is data read from a config file (``rules:``); nothing in it is ever run. Each has a
``level``: an advisory rule is only reported, a soft one fails the command unless overridden
by name (``--override NAME``), a hard one always fails it. A ``RuleResult`` is one rule's
verdict on one state, with the sentence that explains it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping


class Level(StrEnum):
    """How much a failing rule matters."""

    ADVISORY = "advisory"
    """Reported; the command succeeds."""
    SOFT = "soft"
    """Fails the command unless ``--override NAME``."""
    HARD = "hard"
    """Fails the command; no override."""


class RuleVerdict(StrEnum):
    """One rule's verdict (the JSON spelling is the value)."""

    PASS = "pass"
    FAIL = "fail"
    OVERRIDDEN = "overridden"
    """A soft rule that failed and was overridden by name."""


class Check(StrEnum):
    """Every check a rule may name."""

    CAPACITY_WITHIN_ENVIRONMENT = "capacity_within_environment"
    MIN_CAPACITY = "min_capacity"
    MAX_CAPACITY = "max_capacity"
    MAX_RESERVE_FRACTION = "max_reserve_fraction"
    MAX_BORROW_LIMIT = "max_borrow_limit"
    REQUIRED_TAGS = "required_tags"
    MAX_DISRUPTION = "max_disruption"
    MAX_WAIT = "max_wait"
    MAX_PREEMPTIONS = "max_preemptions"


STATIC_CHECKS = frozenset(
    {
        Check.CAPACITY_WITHIN_ENVIRONMENT,
        Check.MIN_CAPACITY,
        Check.MAX_CAPACITY,
        Check.MAX_RESERVE_FRACTION,
        Check.MAX_BORROW_LIMIT,
        Check.REQUIRED_TAGS,
    }
)
"""Judged on the desired state alone (validate, plan, apply)."""
DISRUPTION_CHECKS = frozenset({Check.MAX_DISRUPTION})
"""Judged on a plan's runtime impact (plan, apply)."""
OUTCOME_CHECKS = frozenset({Check.MAX_WAIT, Check.MAX_PREEMPTIONS})
"""Judged on what a simulation of a trace measured (simulate, tune)."""


@dataclass(frozen=True)
class Rule:
    """One rule as written. Only the parameters of its ``check`` are set (config checks
    that); ``share`` is ``queue/name``, or a share's name when only one queue has it."""

    name: str
    level: Level
    check: Check
    team: str | None = None
    share: str | None = None
    capacity: Mapping[str, int] = field(default_factory=dict)
    value: int | None = None
    """Percent: max_reserve_fraction, max_borrow_limit."""
    allow_unlimited: bool = False
    keys: tuple[str, ...] = ()
    jobs: int | None = None
    p95: float | None = None
    """Seconds."""
    mean: float | None = None
    """Seconds."""
    count: int | None = None
    work_lost: float | None = None
    """Instance-hours."""

    @property
    def constrains(self) -> bool:
        """Whether a failure stops the command (soft or hard): what ``tune`` must respect."""
        return self.level is not Level.ADVISORY

    @property
    def subject(self) -> str | None:
        """``team nlp``, ``share training/nlp``, or None for a rule about everything."""
        if self.team is not None:
            return f"team {self.team}"
        if self.share is not None:
            return f"share {self.share}"
        return None


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict and why."""

    rule: Rule
    outcome: RuleVerdict
    message: str

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def level(self) -> Level:
        return self.rule.level

    @property
    def check(self) -> Check:
        return self.rule.check

    @property
    def blocks(self) -> bool:
        """The command must fail: a soft or hard rule that failed (not overridden)."""
        return self.outcome is RuleVerdict.FAIL and self.rule.level is not Level.ADVISORY

    def to_json(self) -> dict[str, str]:
        """``{"name", "level", "check", "result", "message"}``: every output's shape."""
        return {
            "name": self.rule.name,
            "level": self.rule.level.value,
            "check": self.rule.check.value,
            "result": self.outcome.value,
            "message": self.message,
        }


@dataclass(frozen=True)
class RuleReport:
    """The rules a command judged, the overrides it was given, and every result."""

    rules: tuple[Rule, ...] = ()
    overrides: tuple[str, ...] = ()
    results: tuple[RuleResult, ...] = ()

    @property
    def blocking(self) -> tuple[RuleResult, ...]:
        """The results that fail the command."""
        return tuple(r for r in self.results if r.blocks)
