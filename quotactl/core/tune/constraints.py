"""The organisation's rules as tune's constraints: every soft and hard rule must pass.

Static rules (capacity, reserve fraction, borrow limits, tags) are judged on a candidate's
configuration before it is simulated, so a candidate that breaks one costs no simulation;
outcome rules (``max_wait``, ``max_preemptions``) are judged on its simulation. Advisory rules
constrain nothing: ``judged`` reports them with the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.rules import RuleVerdict, evaluate_outcome, evaluate_static

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule, RuleResult
    from quotactl.core.simulate.metrics import SimulationResult


class RuleConstraints:
    """``Constraints`` from rules: the messages of the soft and hard rules a candidate fails."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.binding = tuple(r for r in self.rules if r.constrains)

    def before(self, desired: DesiredState) -> tuple[str, ...]:
        return _failed(evaluate_static(self.binding, desired))

    def after(self, desired: DesiredState, result: SimulationResult) -> tuple[str, ...]:
        return _failed(evaluate_outcome(self.binding, desired, result))

    def judged(self, desired: DesiredState, result: SimulationResult) -> list[RuleResult]:
        """Every rule's result on a candidate, advisory ones included, in the rules' order."""
        found = {
            id(r.rule): r
            for r in (
                *evaluate_static(self.rules, desired),
                *evaluate_outcome(self.rules, desired, result),
            )
        }
        return [found[id(rule)] for rule in self.rules if id(rule) in found]


def _failed(results: Sequence[RuleResult]) -> tuple[str, ...]:
    return tuple(f"rule {r.name}: {r.message}" for r in results if r.outcome is RuleVerdict.FAIL)
