"""Rules use cases: which rules a command judges by, and their results on a configuration or
a simulation (plan and apply judge theirs in ``quotactl.api.stack``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from quotactl.config import LoadedConfig
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.rules import Rule, RuleReport
    from quotactl.core.simulate import SimulationResult


def rules_for(loaded: LoadedConfig, paths: Sequence[Path | str] | None = None) -> tuple[Rule, ...]:
    """The rules of the config files at ``paths`` (``--rules``) when given, else the
    configuration's own."""
    if not paths:
        return loaded.rules
    return rules_for_paths(paths)


def rules_for_paths(paths: Sequence[Path | str]) -> tuple[Rule, ...]:
    """The rules of the config files at ``paths``, every other key of them unread."""
    from quotactl.config import load_rules

    return load_rules([Path(p) for p in paths])


def judge_config(
    rules: Sequence[Rule],
    desired: DesiredState,
    overrides: Sequence[str] = (),
    start: datetime | None = None,
) -> RuleReport:
    """The static rules' results on ``desired`` (``validate``), in every combination of its
    schedule windows that occurs in the year from ``start`` (default: now); an override
    that names no rule is refused (``not-found``)."""
    from datetime import UTC, datetime

    from quotactl.core.rules import RuleReport, check_overrides, evaluate_static_in_time

    check_overrides(overrides, rules)
    when = start or datetime.now(UTC)
    results = evaluate_static_in_time(rules, desired, when, overrides)
    return RuleReport(tuple(rules), tuple(overrides), tuple(results))


def check_overrides(overrides: Sequence[str], rules: Sequence[Rule]) -> None:
    """Refuse (``not-found``) an ``--override`` that names no rule, before a long replay."""
    from quotactl.core.rules import check_overrides as check

    check(overrides, rules)


def judge_simulation(
    rules: Sequence[Rule],
    desired: DesiredState,
    result: SimulationResult,
    overrides: Sequence[str] = (),
) -> RuleReport:
    """The ``max_wait`` and ``max_preemptions`` rules' results on a simulation of a trace
    against ``desired``."""
    from quotactl.core.rules import RuleReport, check_overrides, evaluate_outcome

    check_overrides(overrides, rules)
    results = evaluate_outcome(rules, desired, result, overrides)
    return RuleReport(tuple(rules), tuple(overrides), tuple(results))
