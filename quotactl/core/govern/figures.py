"""Budget figures computed from jobs' held intervals, as the governor counts them: what
``usage`` shows for each budgeted team (the governor's tags carry the same figures, rounded,
for commands that read no configuration)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.govern.readback import BudgetRow
from quotactl.core.govern.usage import budget_usage, period_end

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from quotactl.core.govern.usage import Held
    from quotactl.core.resources.desired import DesiredState


def budget_figures(
    desired: DesiredState, held: Iterable[Held], now: datetime
) -> tuple[BudgetRow, ...]:
    """Each budgeted team's hours counted (``used`` or ``borrowed``, as its budget says) in
    the period holding ``now``, per instance type, with the limit and the period's end."""
    counted = budget_usage(desired, held, now)
    rows = []
    for team in sorted(desired.teams, key=lambda t: t.name):
        budget = team.budget
        if budget is None:
            continue
        resets = period_end(budget.every, now)
        for instance_type, limit in sorted(budget.instance_hours.items()):
            used = counted.get(team.name, {}).get(instance_type, 0.0)
            rows.append(BudgetRow(team.name, instance_type, budget.over, used, limit, resets))
    return tuple(rows)
