"""Requests checked against botocore's service model, the way a server checks them.

``quotactl.servicemodel.walk`` walks the request through its input shape with the checks
botocore leaves to the server and what JSON on the wire adds (``Rules.wire``): required and
unknown members, types (``true`` is not a number), ``min`` and ``max`` lengths and values,
enums, integer bounds (an ``integer`` shape without a ``max`` is a Java ``int`` on AWS's
side: -2^31..2^31-1; ``long`` is 64 bits), finite floats and valid Unicode (no lone
surrogates). This module words its findings as AWS's ClientException does, in botocore's
spelling of member paths. Every rule comes from the shape, so a new member in botocore's
model is checked without a line changing here.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from quotactl.servicemodel.walk import Check, Finding, Rules, walk

if TYPE_CHECKING:
    from botocore.model import ServiceModel, Shape

MAX_ERRORS = 5  # a message lists at most this many problems
MAX_SHOWN = 80  # characters of a value quoted in a message
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}
EXPECTED = {
    "structure": "object",
    "map": "object",
    "list": "array",
    "string": "string",
    "blob": "string",
    "integer": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "timestamp": "timestamp",
}
"""A shape's type as JSON names it, in a type error's ``valid types``."""


def shown(value: Any) -> str:
    """A value as a message quotes it: JSON-ish, cut to ``MAX_SHOWN`` characters."""
    text = repr(value) if isinstance(value, str) else _compact(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return "{...}" if value else "{}"
    if isinstance(value, list):
        return "[...]" if value else "[]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)[: MAX_SHOWN + 1]


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def message(finding: Finding, root: str = "") -> str:
    """A finding as AWS words a ClientException: the member path from ``root``, the value."""
    check, value, name = finding.check, finding.value, _name(finding, root)
    if check is Check.TYPE:
        return (
            f"Invalid type for parameter {name}, value: {shown(value)}, "
            f"type: {json_type(value)}, valid types: {EXPECTED[finding.kind]}"
        )
    if check is Check.UNKNOWN:
        valid = ", ".join(finding.names)
        unknown = json.dumps(str(value)[:MAX_SHOWN])
        return f"Unknown parameter in {name}: {unknown}, must be one of: {valid}"
    if check is Check.MISSING:
        return f'Missing required parameter in {name}: "{finding.member}"'
    return f"Invalid value for parameter {name}, value: {shown(value)}: " + _why(finding)


def _why(finding: Finding) -> str:
    low, high = finding.low, finding.high
    if finding.check is Check.LENGTH:
        return f"length {len(finding.value)}, {_span('valid lengths', low, high)}"
    if finding.check is Check.RANGE:
        return _span("valid range", low, high)
    if finding.check is Check.ENUM:
        return f"valid values: {', '.join(finding.names)}"
    if finding.check is Check.PATTERN:
        return f"must match {finding.pattern}"
    if finding.check is Check.UNICODE:
        return "not valid Unicode (a lone surrogate)"
    return "must be a finite number"


def _name(finding: Finding, root: str) -> str:
    """botocore's spelling of a member's path: ``root.member[0].key``, a map's key as
    ``map (key: 'k')``; ``input`` for the request itself."""
    path = finding.path[:-1] if finding.key or finding.check is Check.UNKNOWN else finding.path
    name = root + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)
    if finding.key:
        name += f" (key: {shown(finding.path[-1])})"
    if not name:
        return "input"
    return name[1:] if name.startswith(".") else name


def _span(label: str, low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{label}: {low} to {high}"
    return f"{label}: at least {low}" if low is not None else f"{label}: at most {high}"


@functools.cache
def service_model(service: str) -> ServiceModel:
    """botocore's model of ``service`` (loaded once per process: it takes ~0.1 s)."""
    import botocore.loaders
    import botocore.model

    raw = botocore.loaders.create_loader().load_service_model(service, "service-2")
    return botocore.model.ServiceModel(raw, service_name=service)


def problems(value: Any, shape: Shape, *, root: str = "", lenient: bool = False) -> list[str]:
    """Every way ``value`` breaks ``shape``, as messages naming the member path from ``root``."""
    found = walk(value, shape, Rules(wire=True, lenient=lenient))
    return [message(finding, root) for finding in found]


def report(found: list[str]) -> str:
    """One message for a list of problems (the first few; the count of the rest)."""
    text = "; ".join(found[:MAX_ERRORS])
    if len(found) > MAX_ERRORS:
        text += f" (and {len(found) - MAX_ERRORS} more)"
    return text
