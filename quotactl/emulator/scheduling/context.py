"""What a handler and the state machine get for one request: the transaction, the emulated
time, the account and the settings. Built by ``Emulator`` per request; never global."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from quotactl.emulator.account.arns import Account
    from quotactl.emulator.scheduling.engines import Engines
    from quotactl.emulator.store.database import Tx


EPSILON = 0.0005  # seconds: float sums of epoch times drift; the wire resolution is 1 ms


def _never_short(instances: Mapping[str, int]) -> bool:
    return False


@dataclass
class Context:
    tx: Tx
    now: float  # emulated epoch seconds
    account: Account
    engines: Engines  # the scheduling engine of each job queue (``engines.py``)
    status_delay: float = 0.0  # emulated seconds each CREATING/UPDATING/... step takes at least
    strict: bool = False  # True before the handler: only what fell due before ``now`` moves
    touched: set[str] = field(default_factory=set)  # ARNs/job ids this request set a status on
    queues: set[int] = field(default_factory=set)  # job queues (seq) whose jobs need a pass
    remodel: set[str] = field(default_factory=set)  # job queues whose settings or shares changed
    everything: bool = False  # the scheduling model of every queue may have changed
    short_of: Callable[[Mapping[str, int]], bool] = _never_short
    variant: str = "default"  # "strict": the reading least convenient to a client (variant.py)
    """Whether SageMaker has too few of these instances for a start (the ``capacity`` fault)."""
    reject_repeated_token: bool = False
    """A SubmitServiceJob repeating a clientToken is rejected (AWS's model text's reading)."""

    def move_clock(self, at: float) -> None:
        """Move the emulated clock forward to ``at`` within this request (a submission that
        would share its ``createdAt`` with the one before it: see ``submitted_at``)."""
        if at <= self.now:
            return
        clock = self.tx.account_row()[2]
        self.tx.set_clock(replace(clock, clock=clock.clock + (at - self.now)))
        self.now = at

    def submitted_at(self) -> float:
        """The ``createdAt`` of a job submitted now: now, or, when the clock has not moved a
        millisecond since the last submission (it stands still between ``local advance``s),
        one millisecond after that one, the clock moved with it. So jobs submitted back to
        back keep their order, as ``simulate`` keeps the order of equal trace times."""
        latest = self.tx.latest_created_at()
        if latest is not None and round(self.now * 1000) <= round(latest * 1000):
            self.move_clock((round(latest * 1000) + 1) / 1000)
        return self.now

    def due(self, at: float, key: str) -> bool:
        """Whether a step due at emulated time ``at`` for resource/job ``key`` happens now.

        A status set in this request never moves on in it; one set earlier at this same
        instant moves on only after the next request's handler, so that request sees it.
        """
        if key in self.touched:
            return False
        return at < self.now - EPSILON if self.strict else at <= self.now + EPSILON

    def changed(self, queue: int | None = None) -> None:
        """What scheduling depends on changed: run a pass at the end of this request over
        ``queue`` (a job queue's seq), or over every queue (a share, environment or queue
        changed: their engines are rebuilt from the stored jobs)."""
        if queue is None:
            self.everything = True
        else:
            self.queues.add(queue)

    def remodelled(self, queue: str) -> None:
        """The job queue's settings or quota shares changed: its engine is rebuilt from the
        stored jobs and a pass runs over it at the end of this request."""
        self.remodel.add(queue)

    def settling(self, key: str) -> None:
        """A status was set on ``key`` that completes after the status delay."""
        self.touched.add(key)
