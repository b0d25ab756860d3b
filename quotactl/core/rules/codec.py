"""Rules and their results as JSON values, and back (a saved plan records both).

Reading is strict: a value of the wrong type is a ``ValueError`` naming it, which the plan
reader turns into ``plan-invalid``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.rules.model import Check, Level, Rule, RuleReport, RuleResult, RuleVerdict

if TYPE_CHECKING:
    from collections.abc import Mapping

_INTS = ("value", "jobs", "count")
_FLOATS = ("p95", "mean", "work_lost")
_OPTIONAL_STRINGS = ("team", "share")


def rule_to_json(rule: Rule) -> dict[str, Any]:
    """``{"name", "level", "check", ...its parameters}``: only what the rule sets."""
    out: dict[str, Any] = {"name": rule.name, "level": rule.level.value, "check": rule.check.value}
    for key in (*_OPTIONAL_STRINGS, *_INTS, *_FLOATS):
        value = getattr(rule, key)
        if value is not None:
            out[key] = value
    if rule.capacity:
        out["capacity"] = dict(rule.capacity)
    if rule.allow_unlimited:
        out["allow_unlimited"] = True
    if rule.keys:
        out["keys"] = list(rule.keys)
    return out


def rule_from_json(raw: object) -> Rule:
    """A rule written by ``rule_to_json``."""
    if not isinstance(raw, dict):
        raise ValueError("a rule is not an object")
    known = {"name", "level", "check", "capacity", "allow_unlimited", "keys"}
    unknown = set(raw) - known - set(_INTS) - set(_FLOATS) - set(_OPTIONAL_STRINGS)
    if unknown:
        raise ValueError(f"a rule has unknown keys: {', '.join(sorted(map(str, unknown)))}")
    params: dict[str, Any] = {}
    for key in _OPTIONAL_STRINGS:
        if key in raw:
            params[key] = _typed(raw, key, str)
    for key in _INTS:
        if key in raw:
            params[key] = _typed(raw, key, int)
    for key in _FLOATS:
        if key in raw:
            params[key] = float(_typed(raw, key, int | float))
    if "capacity" in raw:
        capacity = _typed(raw, "capacity", dict)
        if not all(isinstance(k, str) and _is_int(v) for k, v in capacity.items()):
            raise ValueError("a rule's capacity is not a map of counts")
        params["capacity"] = dict(capacity)
    if "allow_unlimited" in raw:
        params["allow_unlimited"] = _typed(raw, "allow_unlimited", bool)
    if "keys" in raw:
        keys = _typed(raw, "keys", list)
        if not all(isinstance(k, str) for k in keys):
            raise ValueError("a rule's keys are not strings")
        params["keys"] = tuple(keys)
    return Rule(
        name=_typed(raw, "name", str),
        level=Level(_typed(raw, "level", str)),
        check=Check(_typed(raw, "check", str)),
        **params,
    )


def report_to_json(report: RuleReport) -> dict[str, Any]:
    """The three members a plan document holds: results, overrides, definitions."""
    return {
        "rules": [r.to_json() for r in report.results],
        "overrides": list(report.overrides),
        "rule_definitions": [rule_to_json(r) for r in report.rules],
    }


def report_from_json(document: Mapping[str, object]) -> RuleReport:
    """The report ``report_to_json`` wrote (each member absent in plans from before rules)."""
    rules = tuple(rule_from_json(r) for r in _list(document.get("rule_definitions")))
    by_name = {rule.name: rule for rule in rules}
    overrides = _list(document.get("overrides"))
    if not all(isinstance(o, str) for o in overrides):
        raise ValueError("overrides are not strings")
    results = []
    for raw in _list(document.get("rules")):
        if not isinstance(raw, dict):
            raise ValueError("a rule result is not an object")
        rule = by_name.get(_typed(raw, "name", str))
        if rule is None or raw.get("level") != rule.level or raw.get("check") != rule.check:
            raise ValueError(f"rule result {raw.get('name')!r} names no rule of the plan")
        outcome = RuleVerdict(_typed(raw, "result", str))
        results.append(RuleResult(rule, outcome, _typed(raw, "message", str)))
    return RuleReport(rules, tuple(str(o) for o in overrides), tuple(results))


def _typed(raw: Mapping[Any, Any], key: str, kind: Any) -> Any:
    value = raw.get(key)
    if kind is int and not _is_int(value):
        raise ValueError(f"a rule's {key} is not a whole number")
    if isinstance(value, bool) and kind is not bool:
        raise ValueError(f"a rule's {key} is not a {getattr(kind, '__name__', 'number')}")
    if not isinstance(value, kind):
        raise ValueError(f"a rule's {key} is missing or of the wrong type")
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list(value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return value
