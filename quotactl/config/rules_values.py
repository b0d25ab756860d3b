"""Checked ``rules:`` entries -> the core's ``Rule`` values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.rules import Check, Level, Rule

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.config.rules_schema import AnyRule


def to_rules(entries: Iterable[AnyRule]) -> tuple[Rule, ...]:
    """Each entry as a ``Rule`` with only its check's parameters set."""
    return tuple(_rule(entry) for entry in entries)


def _rule(entry: AnyRule) -> Rule:
    params = entry.model_dump(exclude={"name", "level", "check"}, exclude_none=True)
    if "keys" in params:
        params["keys"] = tuple(params["keys"])
    if "work_lost" in params:
        params["work_lost"] = float(params["work_lost"])
    return Rule(name=entry.name, level=Level(entry.level), check=Check(entry.check), **params)
