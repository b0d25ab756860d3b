"""What the job commands that may estimate a start return: ``jobs``' ``JobRows`` (with
``--eta``, the estimates), ``job why``'s ``Explained`` and ``submit --dry-run``'s
``Preview``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from quotactl.core.estimate.estimate import Estimates, Eta
    from quotactl.core.jobs.placement import Placement
    from quotactl.core.jobs.why import Why
    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class JobRows:
    """``jobs``: the jobs newest first, read as they are iterated (a live listing: each row
    can be drawn as it arrives) unless ``estimates`` (``--eta``) had to read them all first.
    ``clock`` gives the account's clock, known once the first job is in; ``wide``: the jobs
    were described (priority, preemptions)."""

    jobs: Iterable[LiveJob]
    clock: Callable[[], float]
    wide: bool = False
    estimates: Estimates | None = None


@dataclass(frozen=True)
class Explained:
    """``job why``'s answer and, for a job that waits, when it is expected to start."""

    why: Why
    estimates: Estimates
    now: float

    @property
    def eta(self) -> Eta | None:
        return self.estimates.eta(self.why.job.job_id)


@dataclass(frozen=True)
class Preview:
    """Where the job would run now, and the names of the jobs the placement mentions."""

    placement: Placement
    queue: str
    share: str
    names: dict[str, str]
    placements: tuple[Placement, ...] = ()
    """One per job of a ``--count`` (the first is ``placement``), in submission order."""
    estimates: Estimates | None = None
    """When each previewed job is expected to start (by its ID in ``placements``)."""
    ids: tuple[str, ...] = ()
    """The previewed jobs' IDs, in the order of ``placements``."""
    now: float = 0.0
