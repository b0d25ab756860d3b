"""pydantic validation errors -> ``FILE:LINE:COL`` diagnostics in the config's own words.

pydantic reports ``loc`` paths such as ``('teams', 0, 'shares', 1, 'capacity')``; the source
map turns each into the position of the offending key or value, and the message is rewritten
for someone editing YAML (``expected an integer, got a string``), with a "did you mean" for
misspelt keys.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any

from quotactl.config.builder import abbreviate, yaml_type
from quotactl.config.policy_schema import DAY_PATTERN, HOURS_PATTERN
from quotactl.config.rules_schema import RULE_MODELS
from quotactl.config.schema import (
    ACCOUNT_PATTERN,
    MODELS_BY_PATH,
    NAME_PATTERN,
    REGION_PATTERN,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pydantic import BaseModel, ValidationError
    from pydantic_core import ErrorDetails

    from quotactl.config.positions import SourceMap, YamlPath
    from quotactl.errors import Diagnostic

_EXPECTED = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "int_parsing": "a whole number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
_PATTERNS = {
    NAME_PATTERN: "not a valid name: use 1 to 128 letters, digits, '-' or '_'",
    REGION_PATTERN: "not an AWS region name such as us-east-1",
    ACCOUNT_PATTERN: "not an AWS account id (exactly 12 digits)",
    DAY_PATTERN: "not a day (mon, tue, wed, thu, fri, sat, sun) or a range such as mon-fri",
    HOURS_PATTERN: 'not hours such as "20:00-08:00" (HH:MM-HH:MM, local wall-clock time)',
}
_KEY_MARK = "[key]"
_WHOLE_PATH = ("missing", "extra_forbidden")


def diagnostics_from(
    error: ValidationError,
    source: SourceMap,
    models: Mapping[tuple[str, ...], type[BaseModel]] = MODELS_BY_PATH,
) -> list[Diagnostic]:
    """One diagnostic per pydantic error, positioned at the key or value it is about.

    ``models`` says which model each mapping is (by key path without list indices), for the
    "did you mean" of unknown keys: the config's by default, a job spec's for ``submit``.
    """
    return [_diagnostic(details, source, models) for details in error.errors(include_url=False)]


def _diagnostic(
    details: ErrorDetails, source: SourceMap, models: Mapping[tuple[str, ...], type[BaseModel]]
) -> Diagnostic:
    loc, tag = _without_tag(tuple(details["loc"]))
    kind = details["type"]
    if tag is not None:
        models = {**models, ("rules",): RULE_MODELS[tag]}
    if kind == "union_tag_not_found":
        message = (
            f"{_describe(loc)}: missing required key 'check' (one of: {', '.join(RULE_MODELS)})"
        )
        return source.diagnostic(loc, message, at="key")
    if kind == "union_tag_invalid":
        check = (details.get("ctx") or {}).get("tag")
        message = f"{_describe(loc)}: unknown check {abbreviate(str(check))!r}" + did_you_mean(
            str(check), list(RULE_MODELS)
        )
        return source.diagnostic((*loc, "check"), message)
    if kind in ("rule_target", "rule_bound"):
        return source.diagnostic(loc, f"{_describe(loc)}: {details['msg']}", at="key")
    # pydantic marks an error about a mapping key with a trailing "[key]" (a YAML key may be
    # spelt "[key]" too: missing/unknown-key errors are always about the full path).
    about_key = len(loc) > 1 and loc[-1] == _KEY_MARK and kind not in _WHOLE_PATH
    path: YamlPath = loc[:-1] if about_key else loc
    if kind == "missing":
        parent = path[:-1]
        where = _describe(parent) or "the file"
        message = f"{where}: missing required key {path[-1]!r}"
        return source.diagnostic(parent, message, at="key")
    if kind == "extra_forbidden":
        return source.diagnostic(path, _unknown_key(path, models), at="key")
    message = _explain(kind, details.get("ctx") or {}, details["input"], source.plain_text, path)
    if about_key:
        return source.diagnostic(path, f"{_describe(path[:-1])}: key {message}", at="key")
    return source.diagnostic(path, f"{_describe(path)}: {message}")


def _without_tag(loc: YamlPath) -> tuple[YamlPath, str | None]:
    """A rule's error path without the check name pydantic puts in it (not a YAML key)."""
    if len(loc) > 2 and loc[0] == "rules" and isinstance(loc[1], int) and loc[2] in RULE_MODELS:
        return (*loc[:2], *loc[3:]), str(loc[2])
    return loc, None


def _explain(
    kind: str,
    ctx: dict[str, Any],
    value: object,
    plain_text: dict[YamlPath, str],
    path: YamlPath,
) -> str:
    if kind in _EXPECTED:
        got = yaml_type(value)
        text = plain_text.get(path)
        if kind == "string_type" and text is not None:
            return (
                f"expected a string, got {got} (YAML reads the unquoted {text!r} that way): "
                f'quote it ("{text}")'
            )
        if value is None:
            got = "nothing (null)"
        elif isinstance(value, str):
            got = f"the string {_shown(value)}"
        return f"expected {_EXPECTED[kind]}, got {got}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}, got {_number(value)}"
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']}, got {_number(value)}"
    if kind == "too_short":
        minimum = ctx["min_length"]
        return f"needs at least {minimum} {_entries(minimum)}, got {ctx['actual_length']}"
    if kind == "too_long":
        maximum = ctx["max_length"]
        actual = len(value) if isinstance(value, list | dict | str) else ctx.get("actual_length")
        return f"allows at most {maximum} {_entries(maximum)}, got {actual}"
    if kind == "literal_error":
        return f"expected one of {ctx['expected']}, got {_shown(value)}"
    if kind == "string_pattern_mismatch":
        reason = _PATTERNS.get(str(ctx.get("pattern")), f"not matching {ctx.get('pattern')}")
        return f"{_shown(value)} is {reason}"
    if kind == "string_too_long":
        return f"must be at most {ctx['max_length']} characters, got {len(str(value))}"
    if kind == "string_too_short":
        return f"must be at least {ctx['min_length']} character long"
    if kind == "rule_duration":
        return (
            f"expected a duration such as 90s, 30m, 2h or 1d, or plain seconds, got {_shown(value)}"
        )
    if kind == "timezone":
        return f"expected an IANA time zone such as UTC or Europe/Berlin, got {_shown(value)}"
    if kind == "dates":
        return f"{ctx.get('message') or 'expected a date'}, got {_shown(value)}"
    if kind == "borrow_limit":
        return (
            f'expected a percentage (a whole number, 0 or more) or "unlimited", got {_shown(value)}'
        )
    return str(ctx.get("message") or kind.replace("_", " "))


def _unknown_key(path: YamlPath, models: Mapping[tuple[str, ...], type[BaseModel]]) -> str:
    key = str(path[-1])
    parent = path[:-1]
    model = models.get(tuple(p for p in parent if isinstance(p, str)))
    where = _describe(parent)
    message = f"unknown key {abbreviate(key)!r}" + (f" in {where}" if where else "")
    if model is None:
        return message
    return message + did_you_mean(key, list(model.model_fields))


def did_you_mean(key: str, allowed: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for a misspelt key, else the keys allowed."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower().replace("-", "_")
    close = [snake] if snake in allowed else difflib.get_close_matches(key, allowed, n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (expected one of: {', '.join(allowed)})"


def _describe(path: Sequence[str | int]) -> str:
    """``teams[0].shares[1].capacity``: where a value sits, in the file's own terms."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            text += f".{part}" if text else part
        else:
            text += f"[{abbreviate(part)!r}]"
    return text


def _entries(count: int) -> str:
    return "entry" if count == 1 else "entries"


def _number(value: object) -> str:
    text = str(value)
    return text if len(text) <= 20 else f"a {len(text)}-digit number"


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(abbreviate(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number(value)
    return yaml_type(value)
