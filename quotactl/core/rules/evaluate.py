"""The rules' entry points: each judges the rules of one kind on one state.

- ``evaluate_static(rules, desired)``: capacity, reserve fraction, borrow limits and tags, on
  a configuration's desired state (validate, plan, apply, and every ``tune`` candidate);
- ``evaluate_disruption(rules, jobs)``: ``max_disruption``, on the number of jobs holding
  instances that a plan terminates or exposes to preemption (plan, apply);
- ``evaluate_outcome(rules, desired, result)``: ``max_wait`` and ``max_preemptions``, on a
  simulation of a trace against ``desired`` (simulate, simulate --compare, tune).

Each returns one ``RuleResult`` per rule of its kind, in the rules' order, and leaves the
other kinds out; ``overrides`` are rule names (``--override NAME``). ``refusal(results)`` is
the error to raise once the output is printed. All of it is pure and cheap: a ``tune``
search calls it for every candidate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.rules.model import (
    DISRUPTION_CHECKS,
    OUTCOME_CHECKS,
    STATIC_CHECKS,
    RuleVerdict,
)
from quotactl.core.rules.outcome import OUTCOME
from quotactl.core.rules.static import STATIC, team_of
from quotactl.core.rules.verdict import Finding, judge
from quotactl.core.words import count_of

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable
    from datetime import datetime

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules.model import Rule, RuleResult
    from quotactl.core.simulate.metrics import SimulationResult


def evaluate_static(
    rules: Iterable[Rule], desired: DesiredState, overrides: Collection[str] = ()
) -> list[RuleResult]:
    """The static rules' results on ``desired``."""
    return [
        judge(rule, STATIC[rule.check](rule, desired), overrides)
        for rule in rules
        if rule.check in STATIC_CHECKS
    ]


def evaluate_static_in_time(
    rules: Iterable[Rule],
    desired: DesiredState,
    start: datetime,
    overrides: Collection[str] = (),
) -> list[RuleResult]:
    """The static rules' results in every combination of schedule windows that occurs in the
    year from ``start``: each rule's result where it first fails (its message naming the
    windows in force and one instant they are), else its result on the base settings."""
    from quotactl.core.govern.windows import combinations, desired_with

    chosen = [rule for rule in rules if rule.check in STATIC_CHECKS]
    combos = combinations(desired, start) if any(s.schedule for s in desired.shares) else []
    results = []
    for rule in chosen:
        result = judge(rule, STATIC[rule.check](rule, desired), overrides)
        if result.outcome is RuleVerdict.PASS:
            for combo in combos:
                named = combo.named(desired.shares)
                if not named:
                    continue
                finding = STATIC[rule.check](rule, desired_with(desired, combo.windows))
                if not finding.passed:
                    when = combo.first.strftime("%Y-%m-%dT%H:%MZ")
                    windows = "; ".join(named)
                    message = f"{finding.message} (window {windows} in force, e.g. at {when})"
                    result = judge(rule, Finding(False, message), overrides)
                    break
        results.append(result)
    return results


def evaluate_disruption(
    rules: Iterable[Rule], jobs: int, overrides: Collection[str] = ()
) -> list[RuleResult]:
    """The ``max_disruption`` rules' results for a plan disrupting ``jobs`` active jobs."""
    results = []
    for rule in rules:
        if rule.check not in DISRUPTION_CHECKS:
            continue
        bound = rule.jobs if rule.jobs is not None else 0
        disrupts = f"the plan disrupts {count_of(jobs, 'active job')}"
        finding = Finding(jobs <= bound, f"{disrupts} (at most {bound} allowed)")
        results.append(judge(rule, finding, overrides))
    return results


def evaluate_outcome(
    rules: Iterable[Rule],
    desired: DesiredState,
    result: SimulationResult,
    overrides: Collection[str] = (),
) -> list[RuleResult]:
    """The ``max_wait`` and ``max_preemptions`` rules' results on ``result``, a simulation
    of a trace against ``desired``."""
    results = []
    for rule in rules:
        if rule.check not in OUTCOME_CHECKS:
            continue
        missing = _missing(rule, desired)
        finding = missing or OUTCOME[rule.check](rule, result)
        results.append(judge(rule, finding, overrides))
    return results


def _missing(rule: Rule, desired: DesiredState) -> Finding | None:
    """A failure for a rule about a team or share the config does not declare."""
    if rule.team is not None and not any(team_of(s) == rule.team for s in desired.shares):
        return Finding(False, f"team {rule.team} is not in the config")
    if rule.share is not None and not any(
        rule.share in (s.name, f"{s.queue}/{s.name}") for s in desired.shares
    ):
        return Finding(False, f"share {rule.share} is not in the config")
    return None
