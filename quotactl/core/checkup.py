"""What ``doctor`` found: one verdict per thing it looked at on this machine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from quotactl.core.results import Failable

if TYPE_CHECKING:
    from quotactl.errors import QuotactlError

Status = Literal["pass", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One thing doctor looked at."""

    name: str
    status: Status
    message: str


@dataclass
class Checkup(Failable):
    """Every check, in the order made; the command fails when one failed."""

    backend: str
    checks: list[Check] = field(default_factory=list)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == "fail"]

    def add(self, name: str, status: Status, message: str) -> None:
        self.checks.append(Check(name, status, message))

    def failure(self) -> QuotactlError | None:
        from quotactl.errors import DoctorFailedError

        if not self.failed:
            return None
        names = ", ".join(c.name for c in self.failed)
        return DoctorFailedError(
            f"{len(self.failed)} check{'' if len(self.failed) == 1 else 's'} failed: {names}",
            hint="each failed check above says what it found",
        )
