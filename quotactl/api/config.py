"""Configuration use cases: ``load``, ``validate`` and ``schema`` (offline, no AWS call)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.errors import ConfigError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.config import LoadedConfig

DEFAULT_CONFIG = Path("configs")
"""Where commands read configuration when given no path."""


@dataclass(frozen=True)
class Validation:
    """What ``validate`` found: the configuration (None when it did not load) and the error
    that fails it (None when it is valid)."""

    paths: list[Path]
    loaded: LoadedConfig | None
    error: QuotactlError | None

    @property
    def valid(self) -> bool:
        return self.error is None


def load(paths: Sequence[Path | str] | None = None) -> LoadedConfig:
    """The configuration at ``paths`` (files or directories; default ``configs/``).

    Raises ``ConfigError`` (every problem at FILE:LINE:COL) when it is invalid; its warnings
    are in ``LoadedConfig.warnings``.
    """
    from quotactl.config import load_config

    return load_config([Path(p) for p in paths or [DEFAULT_CONFIG]])


def validate(paths: Sequence[Path | str] | None = None, *, strict: bool = False) -> Validation:
    """Check the configuration at ``paths`` without calling AWS; with ``strict``, a warning
    fails it too. Never raises for an invalid configuration: the error is in the result."""
    chosen = [Path(p) for p in paths or [DEFAULT_CONFIG]]
    loaded: LoadedConfig | None = None
    try:
        loaded = load(chosen)
        if strict and loaded.diagnostics:
            count = len(loaded.diagnostics)
            raise ConfigError(
                loaded.diagnostics,
                message=f"{count} warning{'' if count == 1 else 's'} with --strict",
                hint="fix the warnings, or validate without --strict",
            )
    except QuotactlError as error:
        return Validation(chosen, loaded, error)
    return Validation(chosen, loaded, None)


def schema() -> dict[str, Any]:
    """The JSON Schema of a config file, for editor completion."""
    from quotactl.config import json_schema

    return json_schema()
