"""Requests checked against botocore's service model, the way a server checks them.

``WireValidator`` is botocore's own ``ParamValidator`` (required members, unknown members,
types, ``min``) taught what botocore leaves to the server and what JSON on the wire adds:
``max`` lengths and values, enums, integer bounds (an ``integer`` shape without a ``max`` is a
Java ``int`` on AWS's side: -2^31..2^31-1; ``long`` is 64 bits), ``true`` is not a number,
floats are finite, strings are valid Unicode (no lone surrogates), and scalar list members
are walked like any other value. Every rule comes from the shape, so a new member in
botocore's model is checked without a line changing here.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import TYPE_CHECKING, Any

from botocore import validate as botocore_validate

if TYPE_CHECKING:
    from botocore.model import ListShape, MapShape, ServiceModel, Shape, StructureShape

# botocore-stubs leave out the hooks (``_validate_<type>``, ``_format_error``) overridden here.
_ParamValidator: Any = botocore_validate.ParamValidator
_ValidationErrors: Any = botocore_validate.ValidationErrors

INT_BOUNDS = {"integer": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
MAX_ERRORS = 5  # a message lists at most this many problems
MAX_SHOWN = 80  # characters of a value quoted in a message
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


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


class WireErrors(_ValidationErrors):  # type: ignore[misc]
    """botocore's report, with values quoted briefly and JSON type names."""

    def _format_error(self, error: Any) -> str:
        kind, name, extra = error
        name = self._get_name(name)
        if kind == "invalid type":
            return (
                f"Invalid type for parameter {name}, value: {shown(extra['param'])}, "
                f"type: {json_type(extra['param'])}, valid types: {extra['expected']}"
            )
        if kind == "invalid value":
            return f"Invalid value for parameter {name}, value: {shown(extra['param'])}: " + str(
                extra["why"]
            )
        if kind == "unknown field":
            valid = ", ".join(extra["valid_names"])
            unknown = json.dumps(str(extra["unknown_param"])[:MAX_SHOWN])
            return f"Unknown parameter in {name}: {unknown}, must be one of: {valid}"
        return str(super()._format_error(error))

    def messages(self) -> list[str]:
        return [self._format_error(e) for e in self._errors]


class WireValidator(_ParamValidator):  # type: ignore[misc]
    """``ParamValidator`` plus the checks AWS makes on its side of the wire.

    ``lenient`` leaves out enums and unknown members: for a document another service reads
    (a SageMaker payload), where only the types and ranges of what the emulator uses matter.
    """

    def __init__(self, *, lenient: bool = False) -> None:
        self.lenient = lenient

    def validate(self, params: Any, shape: Shape, root: str = "") -> WireErrors:
        errors = WireErrors()
        self._validate(params, shape, errors, name=root)
        return errors

    # -- scalars -------------------------------------------------------------------------
    def _validate_string(self, param: Any, shape: Shape, errors: Any, name: str) -> None:
        if not isinstance(param, str):
            errors.report(name, "invalid type", param=param, expected="string")
            return
        if _SURROGATE.search(param):
            errors.report(
                name, "invalid value", param=param, why="not valid Unicode (a lone surrogate)"
            )
            return
        _length(param, shape, errors, name)
        allowed = None if self.lenient else shape.metadata.get("enum")
        if allowed and param not in allowed:
            errors.report(
                name, "invalid value", param=param, why=f"valid values: {', '.join(allowed)}"
            )
        pattern = shape.metadata.get("pattern")
        if pattern and not _compiled(pattern).fullmatch(param):
            errors.report(name, "invalid value", param=param, why=f"must match {pattern}")

    def _validate_integer(self, param: Any, shape: Shape, errors: Any, name: str) -> None:
        if isinstance(param, bool) or not isinstance(param, int):
            errors.report(name, "invalid type", param=param, expected="integer")
            return
        low, high = INT_BOUNDS[shape.type_name]
        _range(param, shape, errors, name, low, high)

    _validate_long = _validate_integer

    def _validate_double(self, param: Any, shape: Shape, errors: Any, name: str) -> None:
        if isinstance(param, bool) or not isinstance(param, (int, float)):
            errors.report(name, "invalid type", param=param, expected="number")
            return
        if isinstance(param, float) and not math.isfinite(param):
            errors.report(name, "invalid value", param=param, why="must be a finite number")
            return
        _range(param, shape, errors, name, None, None)

    _validate_float = _validate_double

    def _validate_boolean(self, param: Any, shape: Shape, errors: Any, name: str) -> None:
        if not isinstance(param, bool):
            errors.report(name, "invalid type", param=param, expected="boolean")

    def _validate_timestamp(self, param: Any, shape: Shape, errors: Any, name: str) -> None:
        if isinstance(param, bool) or not isinstance(param, (int, float, str)):
            errors.report(name, "invalid type", param=param, expected="timestamp")

    # -- containers ------------------------------------------------------------------------
    def _validate_structure(
        self, params: Any, shape: StructureShape, errors: Any, name: str
    ) -> None:
        if not isinstance(params, dict):
            errors.report(name, "invalid type", param=params, expected="object")
            return
        if self.lenient:
            params = {k: v for k, v in params.items() if k in shape.members}
        super()._validate_structure(params, shape, errors, name)

    def _validate_list(self, param: Any, shape: ListShape, errors: Any, name: str) -> None:
        if not isinstance(param, list):
            errors.report(name, "invalid type", param=param, expected="array")
            return
        _length(param, shape, errors, name)
        for index, item in enumerate(param):
            self._validate(item, shape.member, errors, f"{name}[{index}]")

    def _validate_map(self, param: Any, shape: MapShape, errors: Any, name: str) -> None:
        if not isinstance(param, dict):
            errors.report(name, "invalid type", param=param, expected="object")
            return
        _length(param, shape, errors, name)
        for key, value in param.items():
            self._validate(key, shape.key, errors, f"{name} (key: {shown(key)})")
            self._validate(value, shape.value, errors, f"{name}.{key}")


def _length(value: Any, shape: Shape, errors: Any, name: str) -> None:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if _outside(len(value), low, high):
        errors.report(
            name,
            "invalid value",
            param=value,
            why=f"length {len(value)}, {_span('valid lengths', low, high)}",
        )


def _range(
    value: float, shape: Shape, errors: Any, name: str, low: int | None, high: int | None
) -> None:
    low, high = shape.metadata.get("min", low), shape.metadata.get("max", high)
    if _outside(value, low, high):
        errors.report(name, "invalid value", param=value, why=_span("valid range", low, high))


def _outside(value: float, low: float | None, high: float | None) -> bool:
    return (low is not None and value < low) or (high is not None and value > high)


def _span(label: str, low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{label}: {low} to {high}"
    return f"{label}: at least {low}" if low is not None else f"{label}: at most {high}"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.cache
def service_model(service: str) -> ServiceModel:
    """botocore's model of ``service`` (loaded once per process: it takes ~0.1 s)."""
    import botocore.loaders
    import botocore.model

    raw = botocore.loaders.create_loader().load_service_model(service, "service-2")
    return botocore.model.ServiceModel(raw, service_name=service)


def problems(value: Any, shape: Shape, *, root: str = "", lenient: bool = False) -> list[str]:
    """Every way ``value`` breaks ``shape``, as messages naming the member path from ``root``."""
    return WireValidator(lenient=lenient).validate(value, shape, root).messages()


def report(found: list[str]) -> str:
    """One message for a list of problems (the first few; the count of the rest)."""
    text = "; ".join(found[:MAX_ERRORS])
    if len(found) > MAX_ERRORS:
        text += f" (and {len(found) - MAX_ERRORS} more)"
    return text
