"""Configuration use cases: ``load``, ``validate`` and ``schema`` (offline, no AWS call)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.core.validation import ConfigSchema, ConfigSummary, Validation
from quotactl.errors import ConfigError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.config import LoadedConfig
    from quotactl.core.rules import RuleResult

DEFAULT_CONFIG = Path("configs")
"""Where commands read configuration when given no path."""


def load(paths: Sequence[Path | str] | None = None) -> LoadedConfig:
    """The configuration at ``paths`` (files or directories; default ``configs/``).

    Raises ``ConfigError`` (every problem at FILE:LINE:COL) when it is invalid; its warnings
    are in ``LoadedConfig.warnings``.
    """
    from quotactl.config import load_config

    return load_config([Path(p) for p in paths or [DEFAULT_CONFIG]])


def validate(
    paths: Sequence[Path | str] | None = None,
    *,
    strict: bool = False,
    rules: Sequence[Path] | None = None,
    overrides: Sequence[str] = (),
) -> Validation:
    """Check the configuration at ``paths`` without calling AWS, and judge the rules that need
    no live state (the config's own, or those of the files ``rules``), with the soft rules
    named in ``overrides`` accepted; with ``strict``, a warning fails it too. Never raises for
    an invalid configuration or a failed rule: the error is in the result."""
    from quotactl.api.rules import judge_config, rules_for
    from quotactl.core.rules import refusal

    chosen = [Path(p) for p in paths or [DEFAULT_CONFIG]]
    loaded: LoadedConfig | None = None
    judged: tuple[RuleResult, ...] = ()
    error: QuotactlError | None = None
    try:
        loaded = load(chosen)
        if strict and loaded.diagnostics:
            count = len(loaded.diagnostics)
            raise ConfigError(
                loaded.diagnostics,
                message=f"{count} warning{'' if count == 1 else 's'} with --strict",
                hint="fix the warnings, or validate without --strict",
            )
    except QuotactlError as exc:
        error = exc
    if loaded is not None and error is None:
        try:
            judged = judge_config(rules_for(loaded, rules), loaded.desired, overrides).results
        except QuotactlError as exc:
            error = exc
        error = error or refusal(judged)
    if loaded is None:
        return Validation(chosen, None, None, (), error, judged)
    return Validation(
        chosen, loaded.desired, _summary(loaded), tuple(loaded.diagnostics), error, judged
    )


def _summary(loaded: LoadedConfig) -> ConfigSummary:
    return ConfigSummary(
        files=tuple(str(f) for f in loaded.files),
        environments=len(loaded.desired.environments),
        queues=len(loaded.desired.queues),
        teams=len(loaded.model.teams),
        shares=len(loaded.desired.shares),
    )


def schema() -> ConfigSchema:
    """The JSON Schema of a config file, for editor completion."""
    from quotactl.config import json_schema

    return ConfigSchema(json_schema())
