"""Rules: the organisation's quota policy as data, judged on desired states, plans and
simulations (``evaluate_static``, ``evaluate_disruption``, ``evaluate_outcome``).

This package's names are the stable API other rooms (plan, apply, simulate, tune) call.
"""

from quotactl.core.rules.evaluate import (
    evaluate_disruption,
    evaluate_outcome,
    evaluate_static,
    evaluate_static_in_time,
)
from quotactl.core.rules.model import (
    DISRUPTION_CHECKS,
    OUTCOME_CHECKS,
    STATIC_CHECKS,
    Check,
    Level,
    Rule,
    RuleReport,
    RuleResult,
    RuleVerdict,
)
from quotactl.core.rules.verdict import blocking, check_overrides, refusal

__all__ = [
    "DISRUPTION_CHECKS",
    "OUTCOME_CHECKS",
    "STATIC_CHECKS",
    "Check",
    "Level",
    "Rule",
    "RuleReport",
    "RuleResult",
    "RuleVerdict",
    "blocking",
    "check_overrides",
    "evaluate_disruption",
    "evaluate_outcome",
    "evaluate_static",
    "evaluate_static_in_time",
    "refusal",
]
