"""Governance: the policies AWS Batch lacks (schedule windows, budgets, aging), as pure
functions of the configuration, the time and the usage.

- ``desired_at(desired, now, usage)``: the settings every share should have at ``now``;
- ``policy_state(desired, now, usage)``: which windows and budgets are in force, and when
  the next window change is;
- ``window_in_force``, ``combinations``: the window machinery (validate judges the rules in
  every combination of windows that occurs).
"""

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
    "BudgetOver",
    "Combination",
    "PolicyState",
    "WindowInForce",
    "combinations",
    "desired_at",
    "governed",
    "matches",
    "next_change",
    "parse_instant",
    "policy_state",
    "window_in_force",
]
