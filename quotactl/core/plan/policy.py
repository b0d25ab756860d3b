"""A plan judged by the organisation's rules: the static ones on the state the plan leads to,
``max_disruption`` on the jobs its runtime impact disrupts.

``plan`` judges the configuration's desired state and the impact on the jobs it read; apply
judges again under its lock (``quotactl.core.apply.flow``): on the configuration's desired
state, or for a saved plan on the state it leads to (``after_state``: live resources with the
plan's changes made), and on the jobs live at that moment.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.plan.disruption import disrupted_jobs
from quotactl.core.resources.desired import (
    DesiredState,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    ShareSpec,
)
from quotactl.core.rules import RuleReport, evaluate_disruption, evaluate_static

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.observed import ObservedState, Spec
    from quotactl.core.rules import Rule


def judge(
    plan: Plan, desired: DesiredState, rules: Sequence[Rule], overrides: Sequence[str] = ()
) -> Plan:
    """``plan`` with its ``rules`` report: every rule of a kind plan judges, in order."""
    found = evaluate_static(rules, desired, overrides)
    found += evaluate_disruption(rules, len(disrupted_jobs(plan)), overrides)
    by_name = {result.name: result for result in found}
    results = tuple(by_name[rule.name] for rule in rules if rule.name in by_name)
    return replace(plan, rules=RuleReport(tuple(rules), tuple(overrides), results))


def after_state(plan: Plan, live: ObservedState) -> DesiredState:
    """The stack's resources once ``plan`` is applied: what the scope declares, each as the
    plan's change leaves it or, unchanged, as it is live."""
    present = live.present()
    after = {c.address: c.after for c in plan.changes if c.after is not None}
    specs: list[Spec] = []
    for address in plan.scope:
        spec = after.get(address)
        if spec is None and address in present:
            spec = present[address].spec
        if spec is not None:
            specs.append(spec)
    return DesiredState(
        stack=plan.stack,
        region=plan.region,
        account_id=plan.account_id,
        environments=tuple(s for s in specs if isinstance(s, EnvironmentSpec)),
        policies=tuple(s for s in specs if isinstance(s, PolicySpec)),
        queues=tuple(s for s in specs if isinstance(s, QueueSpec)),
        shares=tuple(s for s in specs if isinstance(s, ShareSpec)),
    )
