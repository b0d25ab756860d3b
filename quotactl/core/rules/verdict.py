"""From a check's finding to a rule's result: overrides, and the error a failure raises.

A check says pass or fail with a sentence (``Finding``); ``judge`` applies the rule's level
and the overrides given: a failing soft rule named in ``--override`` is ``overridden``, a
failing hard one stays ``fail`` whatever was asked. ``refusal`` is the ``rule-failed`` error
a command raises after printing its whole output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.rules.model import Level, RuleResult, RuleVerdict
from quotactl.core.words import count_of
from quotactl.errors import NotFoundError, RuleFailedError

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence

    from quotactl.core.rules.model import Rule


@dataclass(frozen=True)
class Finding:
    """What one check found: whether the state passes, and the sentence that says why."""

    passed: bool
    message: str


def judge(rule: Rule, finding: Finding, overrides: Collection[str] = ()) -> RuleResult:
    """The rule's result for ``finding``, with ``overrides`` (rule names) applied."""
    if finding.passed:
        return RuleResult(rule, RuleVerdict.PASS, finding.message)
    if rule.name in overrides and rule.level is Level.SOFT:
        return RuleResult(rule, RuleVerdict.OVERRIDDEN, f"{finding.message} (overridden)")
    if rule.name in overrides and rule.level is Level.HARD:
        message = f"{finding.message} (a hard rule: --override does not apply)"
        return RuleResult(rule, RuleVerdict.FAIL, message)
    return RuleResult(rule, RuleVerdict.FAIL, finding.message)


def blocking(results: Iterable[RuleResult]) -> list[RuleResult]:
    """The results that fail the command (soft or hard, failed, not overridden)."""
    return [r for r in results if r.blocks]


def refusal(results: Sequence[RuleResult]) -> RuleFailedError | None:
    """The ``rule-failed`` error for ``results``, or None when no result fails the command."""
    failed = blocking(results)
    if not failed:
        return None
    names = ", ".join(f"{r.name} ({r.level.value})" for r in failed)
    soft = [r.name for r in failed if r.level is Level.SOFT]
    hint = None
    if soft:
        flags = " ".join(f"--override {name}" for name in soft)
        hint = f"change the config, or accept the soft {_rules(len(soft))} with {flags}"
        if len(soft) < len(failed):
            hint += "; a hard rule cannot be overridden"
    else:
        hint = "change the config: a hard rule cannot be overridden"
    return RuleFailedError(f"{count_of(len(failed), 'rule')} failed: {names}", hint=hint)


def check_overrides(overrides: Iterable[str], rules: Iterable[Rule]) -> None:
    """Refuse (``not-found``) an ``--override`` that names no rule: a typo must not pass."""
    known = {rule.name for rule in rules}
    unknown = sorted(set(overrides) - known)
    if unknown:
        defined = ", ".join(sorted(known)) or "none"
        raise NotFoundError(
            f"--override names no rule: {', '.join(unknown)}",
            hint=f"rules defined: {defined}",
        )


def _rules(n: int) -> str:
    return "rule" if n == 1 else "rules"
