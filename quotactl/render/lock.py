"""Views of the stack lock: who holds it, and that ``force-unlock`` removed it."""

from __future__ import annotations

from quotactl.core.apply.lock import LockCleared, LockHolding
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view


@view(LockHolding, Output.TEXT)
def show_holding(holding: LockHolding, screen: Screen) -> None:
    if holding.holder is None:
        line = f"Stack {holding.stack!r} is not locked: nothing to do."
    else:
        line = f"Stack {holding.stack!r} is locked by {holding.holder.describe(holding.now)}."
    screen.console().print(line, markup=False)


@view(LockCleared, Output.TEXT)
def show_cleared(cleared: LockCleared, screen: Screen) -> None:
    screen.console().print(f"Removed the lock of stack {cleared.stack!r}.", markup=False)
