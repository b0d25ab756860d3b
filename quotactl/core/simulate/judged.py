"""What ``simulate`` shows: one replay, or two compared, with the rules' results on the
configuration under review; a failing rule fails the command after it is shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quotactl.core.rules import RuleResult
    from quotactl.core.simulate.compare import Comparison
    from quotactl.core.simulate.metrics import SimulationResult
    from quotactl.errors import RuleFailedError


@dataclass(frozen=True)
class JudgedSimulation:
    """One replay of ``trace`` against ``config`` (the paths' names) and every rule's result."""

    result: SimulationResult
    trace: str
    config: str
    rules: tuple[RuleResult, ...] = ()

    def refusal(self) -> RuleFailedError | None:
        """The ``rule-failed`` error the command ends with, or None when no rule fails it."""
        from quotactl.core.rules import refusal

        return refusal(self.rules)


@dataclass(frozen=True)
class JudgedComparison:
    """Two replays of ``trace`` compared, with every rule's result on the one under review
    (``after``)."""

    comparison: Comparison
    trace: str
    rules: tuple[RuleResult, ...] = ()

    def refusal(self) -> RuleFailedError | None:
        """The ``rule-failed`` error the command ends with, or None when no rule fails it."""
        from quotactl.core.rules import refusal

        return refusal(self.rules)
