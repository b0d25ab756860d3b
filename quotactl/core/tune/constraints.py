"""The organisation's rules as tune's constraints: every soft and hard rule must pass.

Static rules (capacity, reserve fraction, borrow limits, tags) are judged on a candidate's
configuration before it is simulated, so a candidate that breaks one costs no simulation;
outcome rules (``max_wait``, ``max_preemptions``) are judged on its simulation. Advisory rules
constrain nothing: ``judged`` reports them with the others; nor do soft rules accepted with
``--override NAME``, nor rules about shares or teams of other queues than the one tuned (a
candidate changes only that queue, so such a rule cannot tell candidates apart, and one failing
would refuse them all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.rules import RuleVerdict, evaluate_outcome, evaluate_static

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule, RuleResult
    from quotactl.core.simulate.metrics import SimulationResult


class RuleConstraints:
    """``Constraints`` from rules: the messages of the soft and hard rules a candidate fails."""

    def __init__(
        self,
        rules: Sequence[Rule],
        overrides: Collection[str] = (),
        *,
        desired: DesiredState | None = None,
        queue: str | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.overrides = tuple(overrides)
        self.binding = tuple(
            r
            for r in self.rules
            if r.constrains and (queue is None or desired is None or _concerns(r, desired, queue))
        )

    def before(self, desired: DesiredState) -> tuple[str, ...]:
        return _failed(evaluate_static(self.binding, desired, self.overrides))

    def after(self, desired: DesiredState, result: SimulationResult) -> tuple[str, ...]:
        return _failed(evaluate_outcome(self.binding, desired, result, self.overrides))

    def judged(self, desired: DesiredState, result: SimulationResult) -> list[RuleResult]:
        """Every rule's result on a candidate, advisory ones included, in the rules' order."""
        found = {
            id(r.rule): r
            for r in (
                *evaluate_static(self.rules, desired, self.overrides),
                *evaluate_outcome(self.rules, desired, result, self.overrides),
            )
        }
        return [found[id(rule)] for rule in self.rules if id(rule) in found]


def _concerns(rule: Rule, desired: DesiredState, queue: str) -> bool:
    """Whether ``rule`` is about the tuned ``queue``: a rule about everything is; a rule about
    a share or a team is when that share, or one of the team's shares, is in the queue."""
    if rule.share is not None:
        name = rule.share
        return any(
            s.queue == queue and name in (f"{s.queue}/{s.name}", s.name) for s in desired.shares
        )
    if rule.team is not None:
        return any(s.queue == queue and s.team == rule.team for s in desired.shares)
    return True


def _failed(results: Sequence[RuleResult]) -> tuple[str, ...]:
    return tuple(f"rule {r.name}: {r.message}" for r in results if r.outcome is RuleVerdict.FAIL)
