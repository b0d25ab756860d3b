"""A candidate as a change to the current configuration: what each share would set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.resources.desired import UNLIMITED

if TYPE_CHECKING:
    from quotactl.core.tune.result import Trial
    from quotactl.core.tune.space import Setting, Space


@dataclass(frozen=True)
class Edit:
    """One setting of one share, before -> after, as the configuration spells it."""

    queue: str
    share: str
    team: str | None
    key: str
    """``capacity.<instance type>``, ``sharing`` or ``borrow_limit``."""
    before: str
    after: str


def edits(space: Space, current: Trial, trial: Trial) -> tuple[Edit, ...]:
    """What ``trial`` changes against ``current``, share by share in the configuration's order."""
    found = []
    for share, old, new in zip(space.shares, current.candidate, trial.candidate, strict=True):
        spec = share.spec
        pairs = [
            (f"capacity.{itype}", str(a), str(b))
            for itype, a, b in zip(share.types, old.limits, new.limits, strict=True)
        ]
        pairs.append(("sharing", old.strategy.value.lower(), new.strategy.value.lower()))
        pairs.append(("borrow_limit", _borrow(old), _borrow(new)))
        found += [
            Edit(spec.queue, spec.name, spec.team, key, a, b) for key, a, b in pairs if a != b
        ]
    return tuple(found)


def _borrow(setting: Setting) -> str:
    """The borrow limit as the configuration writes it; ``-`` where the strategy never borrows."""
    if not setting.strategy.borrows:
        return "-"
    return "unlimited" if setting.borrow_limit == UNLIMITED else str(setting.borrow_limit)
