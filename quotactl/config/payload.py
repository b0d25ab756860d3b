"""Check a CreateTrainingJob request against botocore's SageMaker service model.

The shape is walked member by member (structures, lists, maps, strings with their enums,
lengths and patterns, numbers with their ranges), so the rules are AWS's own and come with
every boto3 upgrade; nothing here restates them. Each problem is named by its path in the
request, e.g. ``AlgorithmSpecification.TrainingInputMode``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.config.builder import abbreviate, yaml_type
from quotactl.config.messages import did_you_mean

if TYPE_CHECKING:
    from botocore.model import Shape

    from quotactl.config.positions import YamlPath

OPERATION = "CreateTrainingJob"
MAX_PROBLEMS = 20


@dataclass(frozen=True)
class Problem:
    """One member of the request that CreateTrainingJob would refuse."""

    path: YamlPath
    message: str
    at_key: bool = False

    @property
    def where(self) -> str:
        return dotted(self.path)


@functools.cache
def request_shape() -> Shape:
    """The input shape of SageMaker's CreateTrainingJob, from the installed botocore."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sagemaker")
    shape = model.operation_model(OPERATION).input_shape
    assert shape is not None
    return shape


def check_payload(payload: object) -> list[Problem]:
    """Every way ``payload`` breaks the CreateTrainingJob shape, plus quota shares' own need:
    it must name its instances (``ResourceConfig`` with an instance type and count, or
    ``ResourceConfig.InstanceGroups``)."""
    problems: list[Problem] = []
    _walk(payload, request_shape(), (), problems)
    if isinstance(payload, dict) and not problems:
        problems += _instances(payload)
    return problems[:MAX_PROBLEMS]


def instances_of(payload: dict[str, Any]) -> dict[str, int]:
    """Instances per type a (checked) request asks for."""
    resources = payload.get("ResourceConfig") or {}
    groups = resources.get("InstanceGroups") or [resources]
    out: dict[str, int] = {}
    for group in groups:
        if "InstanceType" in group and "InstanceCount" in group:
            unit = str(group["InstanceType"])
            out[unit] = out.get(unit, 0) + int(group["InstanceCount"])
    return out


def _instances(payload: dict[str, Any]) -> list[Problem]:
    resources = payload.get("ResourceConfig")
    why = (
        "a quota share places a job by its instances: give ResourceConfig.InstanceType and "
        "ResourceConfig.InstanceCount, or ResourceConfig.InstanceGroups"
    )
    if not isinstance(resources, dict):
        return [Problem((), f"the request names no instances ({why})")]
    if resources.get("InstanceGroups"):
        return []
    missing = [k for k in ("InstanceType", "InstanceCount") if k not in resources]
    if missing:
        return [Problem(("ResourceConfig",), f"ResourceConfig has no {missing[0]} ({why})")]
    if int(resources["InstanceCount"]) < 1:
        return [
            Problem(
                ("ResourceConfig", "InstanceCount"),
                "ResourceConfig.InstanceCount: must be "
                f"at least 1, got {resources['InstanceCount']}",
            )
        ]
    return []


def _walk(value: object, shape: Shape, path: YamlPath, out: list[Problem]) -> None:
    if len(out) >= MAX_PROBLEMS:
        return
    kind = shape.type_name
    if kind == "structure":
        _structure(value, shape, path, out)
    elif kind == "list":
        if not isinstance(value, list):
            out.append(_type(path, "a list", value))
            return
        _length(value, shape, path, out, "entries")
        member: Shape = shape.member  # type: ignore[attr-defined]
        for index, item in enumerate(value):
            _walk(item, member, (*path, index), out)
    elif kind == "map":
        if not isinstance(value, dict):
            out.append(_type(path, "a mapping", value))
            return
        _length(value, shape, path, out, "entries")
        key_shape: Shape = shape.key  # type: ignore[attr-defined]
        value_shape: Shape = shape.value  # type: ignore[attr-defined]
        for key, item in value.items():
            _walk(key, key_shape, (*path, key), out)
            _walk(item, value_shape, (*path, key), out)
    elif kind == "string":
        _string(value, shape, path, out)
    elif kind in ("integer", "long"):
        if not isinstance(value, int) or isinstance(value, bool):
            out.append(_type(path, "a whole number", value))
            return
        _range(value, shape, path, out)
    elif kind in ("float", "double"):
        if not isinstance(value, int | float) or isinstance(value, bool):
            out.append(_type(path, "a number", value))
            return
        _range(value, shape, path, out)
    elif kind == "boolean":
        if not isinstance(value, bool):
            out.append(_type(path, "true or false", value))
    elif kind == "timestamp":
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            out.append(_type(path, "a timestamp", value))
    elif kind == "blob" and not isinstance(value, str):
        out.append(_type(path, "a string (base64)", value))


def _structure(value: object, shape: Shape, path: YamlPath, out: list[Problem]) -> None:
    if not isinstance(value, dict):
        out.append(_type(path, "a mapping", value))
        return
    members: dict[str, Shape] = shape.members  # type: ignore[attr-defined]
    for key in value:
        if key not in members:
            where = f" in {dotted(path)}" if path else " in CreateTrainingJob"
            hint = did_you_mean(str(key), list(members))
            if "did you mean" not in hint and len(members) > 10:
                hint = " (see CreateTrainingJob in the SageMaker API reference)"
            message = f"unknown member {abbreviate(str(key))!r}{where}{hint}"
            out.append(Problem((*path, key), message, at_key=True))
    for required in shape.required_members:
        if required not in value:
            message = f"{dotted(path) or 'the request'}: missing required member {required!r}"
            out.append(Problem(path, message, at_key=bool(path)))
    for key, item in value.items():
        if key in members:
            _walk(item, members[key], (*path, key), out)


def _string(value: object, shape: Shape, path: YamlPath, out: list[Problem]) -> None:
    if not isinstance(value, str):
        out.append(_type(path, "a string", value))
        return
    enum = shape.enum  # type: ignore[attr-defined]
    if enum and value not in enum:
        close = did_you_mean(value, list(enum)) if len(enum) > 12 else ""
        choices = "" if close else f": use one of {', '.join(enum)}"
        text = close.replace(" (", "; ").rstrip(")") if close else choices
        out.append(Problem(path, f"{dotted(path)}: {abbreviate(value)!r} is not allowed{text}"))
        return
    metadata = shape.metadata
    if "min" in metadata and len(value) < metadata["min"]:
        out.append(
            Problem(path, f"{dotted(path)}: must be at least {metadata['min']} characters long")
        )
    elif "max" in metadata and len(value) > metadata["max"]:
        out.append(
            Problem(
                path,
                f"{dotted(path)}: must be at most {metadata['max']} characters, got {len(value)}",
            )
        )
    elif "pattern" in metadata and not _matches(metadata["pattern"], value):
        out.append(
            Problem(
                path,
                f"{dotted(path)}: {abbreviate(value)!r} does not match AWS's pattern "
                f"{abbreviate(metadata['pattern'], 60)}",
            )
        )


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:  # a Java-only construct: AWS will check it
        return None


def _matches(pattern: str, value: str) -> bool:
    compiled = _compiled(pattern)
    return compiled is None or compiled.fullmatch(value) is not None


def _range(value: float, shape: Shape, path: YamlPath, out: list[Problem]) -> None:
    metadata = shape.metadata
    if "min" in metadata and value < metadata["min"]:
        out.append(
            Problem(path, f"{dotted(path)}: must be at least {metadata['min']}, got {value}")
        )
    elif "max" in metadata and value > metadata["max"]:
        out.append(Problem(path, f"{dotted(path)}: must be at most {metadata['max']}, got {value}"))


def _length(
    value: list[Any] | dict[Any, Any], shape: Shape, path: YamlPath, out: list[Problem], unit: str
) -> None:
    metadata = shape.metadata
    if "min" in metadata and len(value) < metadata["min"]:
        out.append(
            Problem(
                path, f"{dotted(path)}: needs at least {metadata['min']} {unit}, got {len(value)}"
            )
        )
    elif "max" in metadata and len(value) > metadata["max"]:
        out.append(
            Problem(
                path, f"{dotted(path)}: allows at most {metadata['max']} {unit}, got {len(value)}"
            )
        )


def _type(path: YamlPath, expected: str, value: object) -> Problem:
    got = f"the string {abbreviate(value)!r}" if isinstance(value, str) else yaml_type(value)
    return Problem(path, f"{dotted(path) or 'the request'}: expected {expected}, got {got}")


def dotted(path: YamlPath) -> str:
    """``InputDataConfig[0].DataSource``: a member's path in AWS's own spelling."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
