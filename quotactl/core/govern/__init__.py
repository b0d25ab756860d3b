"""Governance: the policies AWS Batch lacks (schedule windows, budgets, aging), as pure
functions of the configuration, the time and the usage.

- ``desired_at(desired, now, usage)``: the settings every share should have at ``now``;
- ``policy_state(desired, now, usage)``: which windows and budgets are in force, and when
  the next window change is;
- ``decide(desired, now, shares, jobs, usage)``: a governor cycle's actions (``cycle.py``);
- ``window_in_force``, ``combinations``: the window machinery (validate judges the rules in
  every combination of windows that occurs).
"""

from quotactl.core.govern.cycle import (
    BASE_PRIORITY_TAG,
    BUDGET_TAG,
    GOVERNED_TAG,
    GOVERNOR_TAG,
    Action,
    ActionKind,
    BudgetFigures,
    Decision,
    Drift,
    GovernedJob,
    GovernedShare,
    boost,
    budget_tag,
    decide,
    governed_tag,
    governor_tag,
    read_budget_tag,
    read_governed_tag,
    read_governor_tag,
)
from quotactl.core.govern.state import (
    BudgetOver,
    PolicyState,
    WindowInForce,
    desired_at,
    governed,
    parse_instant,
    policy_state,
)
from quotactl.core.govern.windows import (
    Combination,
    combinations,
    matches,
    next_change,
    window_in_force,
)

__all__ = [
    "BASE_PRIORITY_TAG",
    "BUDGET_TAG",
    "GOVERNED_TAG",
    "GOVERNOR_TAG",
    "Action",
    "ActionKind",
    "BudgetFigures",
    "BudgetOver",
    "Combination",
    "Decision",
    "Drift",
    "GovernedJob",
    "GovernedShare",
    "PolicyState",
    "WindowInForce",
    "boost",
    "budget_tag",
    "combinations",
    "decide",
    "desired_at",
    "governed",
    "governed_tag",
    "governor_tag",
    "matches",
    "next_change",
    "parse_instant",
    "policy_state",
    "read_budget_tag",
    "read_governed_tag",
    "read_governor_tag",
    "window_in_force",
]
