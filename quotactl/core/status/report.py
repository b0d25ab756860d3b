"""What ``status`` reports, as values: rows per share and instance type, heads, borrowing
pairs, queues, teams (computed by ``status.compute``, drawn by ``quotactl.render``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from quotactl.core.govern.readback import Governance

if TYPE_CHECKING:
    from quotactl.core.resources.desired import Strategy


@dataclass(frozen=True)
class CapacityRow:
    """One share's figures for one instance type (for a total row, the sums; no headroom)."""

    instance_type: str
    limit: int
    in_use: int
    own: int
    borrowed: int
    idle: int
    lent: Fraction
    headroom: int | None


@dataclass(frozen=True)
class Head:
    """The job at the front of a share and why it is not running yet."""

    job_id: str
    name: str
    wait_code: str | None


@dataclass(frozen=True)
class ShareStatus:
    name: str
    team: str | None
    sharing: Strategy
    borrow_limit: int | None  # percent; -1 unlimited; None for shares that do not borrow
    in_share_preemption: bool
    enabled: bool
    capacity: tuple[CapacityRow, ...]
    jobs: dict[str, int]
    preempted_24h: int
    head: Head | None


@dataclass(frozen=True)
class Borrowing:
    """``borrower`` holds ``instances`` of ``instance_type`` attributed to ``lender``; with
    ``lender`` None, borrowing no lender's idle capacity covers (limits lowered, or a lender
    turned RESERVE, while the capacity was borrowed): unattributed."""

    instance_type: str
    borrower: str
    lender: str | None
    instances: Fraction


@dataclass(frozen=True)
class QueueStatus:
    name: str
    enabled: bool
    environment: str
    capacity: dict[str, int]
    shares: tuple[ShareStatus, ...]
    totals: tuple[CapacityRow, ...]
    borrowing: tuple[Borrowing, ...]

    def unattributed(self, instance_type: str) -> Fraction:
        """Borrowed instances of ``instance_type`` attributed to no lender: with the lent
        capacity, they add up to the borrowed capacity."""
        return sum(
            (
                b.instances
                for b in self.borrowing
                if b.lender is None and b.instance_type == instance_type
            ),
            Fraction(0),
        )


@dataclass(frozen=True)
class TeamRow:
    instance_type: str
    limit: int
    in_use: int
    borrowed: int
    lent: Fraction


@dataclass(frozen=True)
class TeamStatus:
    """A team's shares added up across queues (teams are the ``quotactl:team`` tag)."""

    name: str
    capacity: tuple[TeamRow, ...]


@dataclass(frozen=True)
class StatusReport:
    at: float
    queues: tuple[QueueStatus, ...]
    teams: tuple[TeamStatus, ...]
    governance: Governance = field(default_factory=Governance)
    """Budgets and the shares the governor holds changed (its tags on the shares)."""
