"""A value checked against a botocore shape, member by member: the one walker.

The walker finds; it words nothing. It follows the shape (structures, lists, maps, strings
with their enums, lengths and patterns, numbers with their ranges) and returns each problem
as a ``Finding``: where it is, which check failed and the facts a message needs. Every rule
comes from the shape, so a member new in botocore's model is checked without a line changing
here. Its two callers word the findings their own way: ``config.payload`` for a job spec's
CreateTrainingJob payload (YAML paths, "did you mean"), ``emulator.wire.shapes`` as AWS's
ClientException does for a Batch request.

``Rules`` holds where the two differ. Tagged unions, documents and JSON-value strings are not
checked: neither model uses them where quotactl walks.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from botocore.model import Shape

Path = tuple[str | int, ...]
"""A member's place in the value: structure members and map keys by name, list entries by
index."""

INT_BOUNDS = {"integer": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
"""An ``integer`` shape without a ``max`` is a Java ``int`` on AWS's side; ``long`` is 64 bits."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_ANY_CASE = re.compile(r"values (?:aren't|are not) case.sensitive", re.IGNORECASE)
"""How AWS's reference marks an enum member whose values are matched in any case."""
ANY_CASE_ENUMS = frozenset({"ServiceJobRetryAction"})
"""Enum shapes AWS matches in any case though their member's text does not say so:
``ServiceJobEvaluateOnExit.action`` takes the same RETRY and EXIT as
``EvaluateOnExit.action``, whose reference says "The values aren't case sensitive"
(https://docs.aws.amazon.com/batch/latest/APIReference/API_EvaluateOnExit.html), and AWS
accepts the SageMaker SDK's ``"Retry"`` for it."""
_NUMBERS = {"integer": (int,), "long": (int,), "float": (int, float), "double": (int, float)}


class Check(StrEnum):
    """What a finding says is wrong."""

    TYPE = "type"  # not of the shape's type (``kind``)
    UNKNOWN = "unknown"  # a member the structure does not have (``names``: the ones it has)
    MISSING = "missing"  # a required ``member`` absent (the path is the structure's)
    ENUM = "enum"  # a string outside the shape's enum (``names``)
    LENGTH = "length"  # a string, list or map outside ``low``..``high`` in length
    RANGE = "range"  # a number outside ``low``..``high``
    PATTERN = "pattern"  # a string that does not match ``pattern``
    UNICODE = "unicode"  # a string with a lone surrogate (``Rules.wire``)
    FINITE = "finite"  # an infinite or NaN number (``Rules.wire``)


@dataclass(frozen=True)
class Finding:
    """One member of a value that its shape does not allow."""

    check: Check
    path: Path
    value: Any
    kind: str
    """The shape's type name: ``structure``, ``string``, ``integer``, ..."""
    key: bool = False
    """The value is a map's key (the path's last part), not the value under it."""
    names: tuple[str, ...] = ()
    member: str = ""
    low: float | None = None
    high: float | None = None
    pattern: str = ""


@dataclass(frozen=True)
class Rules:
    """How strictly a value is read; the defaults are botocore's checks of the shape."""

    wire: bool = False
    """JSON as a server reads it: valid Unicode, finite numbers, integers within Java's
    ``int``/``long``."""
    lenient: bool = False
    """No enums, and unknown members left out: for a document another service reads, where
    only the types and ranges of what is used matter."""
    one_per_value: bool = False
    """A scalar's first problem only (a person fixes one thing at a time)."""
    unknown_first: bool = False
    """A structure's unknown members before its missing ones (botocore reports missing first)."""
    limit: int | None = None
    """Stop once this many findings are in (the rest would not be shown)."""


def walk(value: Any, shape: Shape, rules: Rules | None = None) -> list[Finding]:
    """Every way ``value`` breaks ``shape``, in the order of the value's members."""
    walker = _Walker(rules or Rules())
    walker.value(value, shape, ())
    return walker.found


class _Walker:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.found: list[Finding] = []

    def value(self, value: Any, shape: Shape, path: Path, *, key: bool = False) -> None:
        limit = self.rules.limit
        if limit is not None and len(self.found) >= limit:
            return
        kind = shape.type_name
        if not _is_type(value, kind):
            self.found.append(Finding(Check.TYPE, path, value, kind, key=key))
        elif kind == "structure":
            self.structure(value, shape, path)
        elif kind == "list":
            self.found += self.length(value, shape, path)
            member: Shape = shape.member  # type: ignore[attr-defined]
            for index, item in enumerate(value):
                self.value(item, member, (*path, index))
        elif kind == "map":
            self.found += self.length(value, shape, path)
            key_shape: Shape = shape.key  # type: ignore[attr-defined]
            value_shape: Shape = shape.value  # type: ignore[attr-defined]
            for name, item in value.items():
                self.value(name, key_shape, (*path, name), key=True)
                self.value(item, value_shape, (*path, name))
        elif kind == "string":
            self.scalar(self.string(value, shape, path, key))
        elif kind in _NUMBERS:
            self.scalar(self.number(value, shape, path, key))

    def scalar(self, found: list[Finding]) -> None:
        self.found += found[:1] if self.rules.one_per_value else found

    def structure(self, value: dict[Any, Any], shape: Shape, path: Path) -> None:
        members: dict[str, Shape] = shape.members  # type: ignore[attr-defined]
        if self.rules.lenient:
            value = {k: v for k, v in value.items() if k in members}
        names = tuple(members)
        unknown = [
            Finding(Check.UNKNOWN, (*path, k), k, "structure", names=names)
            for k in value
            if k not in members
        ]
        missing = [
            Finding(Check.MISSING, path, value, "structure", member=name)
            for name in shape.required_members
            if name not in value
        ]
        self.found += unknown + missing if self.rules.unknown_first else missing + unknown
        for name, item in value.items():
            if name in members:
                self.value(item, members[name], (*path, name))

    def length(self, value: Any, shape: Shape, path: Path, key: bool = False) -> list[Finding]:
        low, high = shape.metadata.get("min"), shape.metadata.get("max")
        if not _outside(len(value), low, high):
            return []
        return [Finding(Check.LENGTH, path, value, shape.type_name, key, low=low, high=high)]

    def string(self, value: str, shape: Shape, path: Path, key: bool) -> list[Finding]:
        def finding(check: Check, **facts: Any) -> Finding:
            return Finding(check, path, value, "string", key, **facts)

        if self.rules.wire and _SURROGATE.search(value):
            return [finding(Check.UNICODE)]
        found: list[Finding] = []
        allowed = None if self.rules.lenient else shape.metadata.get("enum")
        # AWS's models give no string both an enum and a length or pattern.
        if allowed and canonical(value, shape) not in allowed:
            found.append(finding(Check.ENUM, names=tuple(allowed)))
        found += self.length(value, shape, path, key)
        pattern = shape.metadata.get("pattern")
        if pattern and not _matches(pattern, value):
            found.append(finding(Check.PATTERN, pattern=pattern))
        return found

    def number(self, value: float, shape: Shape, path: Path, key: bool) -> list[Finding]:
        kind = shape.type_name
        if self.rules.wire and isinstance(value, float) and not math.isfinite(value):
            return [Finding(Check.FINITE, path, value, kind, key)]
        low, high = INT_BOUNDS.get(kind, (None, None)) if self.rules.wire else (None, None)
        low, high = shape.metadata.get("min", low), shape.metadata.get("max", high)
        if not _outside(value, low, high):
            return []
        return [Finding(Check.RANGE, path, value, kind, key, low=low, high=high)]


def any_case(shape: Shape) -> bool:
    """Whether AWS matches ``shape``'s enum values in any case (its reference says so)."""
    return shape.name in ANY_CASE_ENUMS or bool(_ANY_CASE.search(shape.documentation or ""))


def canonical(value: str, shape: Shape) -> str:
    """``value`` as the model spells it: the enum value it names in any case, where AWS
    matches ``shape``'s values in any case; else ``value`` itself."""
    allowed = shape.metadata.get("enum") or ()
    if value in allowed or not any_case(shape):
        return value
    folded = value.casefold()
    return next((name for name in allowed if name.casefold() == folded), value)


def _is_type(value: Any, kind: str) -> bool:
    if kind in ("structure", "map"):
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    if kind in ("string", "blob"):  # a blob travels as a base64 string
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):  # ``true`` is not a number
        return False
    if kind == "timestamp":
        return isinstance(value, int | float | str)
    return kind not in _NUMBERS or isinstance(value, _NUMBERS[kind])


def _outside(value: float, low: float | None, high: float | None) -> bool:
    return (low is not None and value < low) or (high is not None and value > high)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:  # a Java-only construct: AWS will check it
        return None


def _matches(pattern: str, value: str) -> bool:
    compiled = _compiled(pattern)
    return compiled is None or compiled.fullmatch(value) is not None
