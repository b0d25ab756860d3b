"""How apply reports progress without knowing who listens (Terraform's ``Hook``/``NilHook``).

``quotactl.render.progress`` implements ``ApplyHooks`` with a rich display; tests record the
calls. The executor calls every hook from one thread, in the order things happen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from quotactl.core.results import Failable

if TYPE_CHECKING:
    from quotactl.core.plan.model import Action, Change, Plan
    from quotactl.errors import QuotactlError


class Status(StrEnum):
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class ChangeOutcome:
    """How one change (or a wait for a settling resource) ended."""

    address: str
    action: Action | None
    status: Status
    message: str | None = None
    """AWS's message for a failure; which address blocked a skipped change."""
    seconds: float = 0.0


@dataclass(frozen=True)
class ApplyResult(Failable):
    """What an apply did, change by change; it failed when a change failed or was skipped."""

    outcomes: tuple[ChangeOutcome, ...]
    seconds: float

    def _with(self, status: Status) -> tuple[ChangeOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is status)

    @property
    def done(self) -> tuple[ChangeOutcome, ...]:
        return self._with(Status.DONE)

    @property
    def failed(self) -> tuple[ChangeOutcome, ...]:
        return self._with(Status.FAILED)

    @property
    def skipped(self) -> tuple[ChangeOutcome, ...]:
        return self._with(Status.SKIPPED)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.skipped

    def failure(self) -> QuotactlError | None:
        from quotactl.core.words import count_of
        from quotactl.errors import ApplyFailedError

        if self.ok:
            return None
        skipped = len(self.skipped)
        return ApplyFailedError(
            f"{count_of(len(self.failed), 'change')} failed and {skipped}"
            f" {'was' if skipped == 1 else 'were'} skipped",
            hint="fix the cause above and run apply again: it picks up where this one stopped",
        )


class ApplyHooks(Protocol):
    def apply_started(self, plan: Plan) -> None: ...

    def before_change(self, change: Change) -> None:
        """The first call for this change is about to be made."""
        ...

    def progress(self, address: str, message: str) -> None:
        """A step inside a change: ``disabling``, ``waiting for VALID (CREATING)``, ..."""
        ...

    def after_change(self, outcome: ChangeOutcome) -> None:
        """Once per change (and per failed wait on a settling resource)."""
        ...

    def apply_finished(self, result: ApplyResult) -> None: ...


class NullHooks:
    """Hooks that ignore everything; subclass and override what you need."""

    def apply_started(self, plan: Plan) -> None:
        return None

    def before_change(self, change: Change) -> None:
        return None

    def progress(self, address: str, message: str) -> None:
        return None

    def after_change(self, outcome: ChangeOutcome) -> None:
        return None

    def apply_finished(self, result: ApplyResult) -> None:
        return None
