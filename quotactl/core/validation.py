"""What checking a configuration offline finds, and the schema editors complete it with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.core.results import Failable

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import RuleResult
    from quotactl.errors import Diagnostic, QuotactlError


@dataclass(frozen=True)
class ConfigSummary:
    """How much a loaded configuration holds: its files and what they declare."""

    files: tuple[str, ...]
    environments: int
    queues: int
    teams: int
    shares: int


@dataclass(frozen=True)
class Validation(Failable):
    """What ``validate`` found: the configuration's resources and summary (None when it did
    not load), its warnings, the rules judged, and the error that fails it (None: valid)."""

    paths: list[Path]
    desired: DesiredState | None
    summary: ConfigSummary | None
    warnings: tuple[Diagnostic, ...]
    error: QuotactlError | None
    rules: tuple[RuleResult, ...] = ()

    @property
    def valid(self) -> bool:
        return self.error is None

    def failure(self) -> QuotactlError | None:
        return self.error


@dataclass(frozen=True)
class ConfigSchema:
    """The JSON Schema of a config file (``document``), for editor completion."""

    document: dict[str, Any]
