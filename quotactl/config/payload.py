"""Check a CreateTrainingJob request against botocore's SageMaker service model.

The shape is walked member by member by ``quotactl.servicemodel.walk``, so the rules are
AWS's own and come with every boto3 upgrade; nothing here restates them. This module words
the walker's findings for a job spec's author: each problem is named by its path in the
request, e.g. ``AlgorithmSpecification.TrainingInputMode``, one per member.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.config.builder import abbreviate, yaml_type
from quotactl.config.messages import did_you_mean
from quotactl.servicemodel.walk import Check, Finding, Rules, walk

if TYPE_CHECKING:
    from botocore.model import Shape

    from quotactl.config.positions import YamlPath

OPERATION = "CreateTrainingJob"
MAX_PROBLEMS = 20
RULES = Rules(wire=True, one_per_value=True, unknown_first=True, limit=MAX_PROBLEMS)
"""As SageMaker reads the request (an ``integer`` without a ``max`` is 32 bits, so an
``InstanceCount`` of 2^31 is refused), a member's first problem only, unknown members first,
at most ``MAX_PROBLEMS``."""
EXPECTED = {
    "structure": "a mapping",
    "map": "a mapping",
    "list": "a list",
    "string": "a string",
    "integer": "a whole number",
    "long": "a whole number",
    "float": "a number",
    "double": "a number",
    "boolean": "true or false",
    "timestamp": "a timestamp",
    "blob": "a string (base64)",
}
"""A shape's type as a job spec's author knows it."""


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
    found = walk(payload, request_shape(), RULES)
    problems = [problem_of(finding) for finding in found]
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


def problem_of(finding: Finding) -> Problem:
    """A finding in a job spec's words: the member's path, what would be accepted."""
    check, path, value, kind = finding.check, finding.path, finding.value, finding.kind
    where = dotted(path)
    if check is Check.UNICODE:
        return Problem(path, f"{where}: is not valid Unicode (a lone surrogate)")
    if check is Check.FINITE:
        return Problem(path, f"{where}: must be a finite number, got {value}")
    if check is Check.TYPE:
        got = f"the string {abbreviate(value)!r}" if isinstance(value, str) else yaml_type(value)
        return Problem(path, f"{where or 'the request'}: expected {EXPECTED[kind]}, got {got}")
    if check is Check.UNKNOWN:
        members = list(finding.names)
        place = f" in {dotted(path[:-1])}" if path[:-1] else " in CreateTrainingJob"
        hint = did_you_mean(str(value), members)
        if "did you mean" not in hint and len(members) > 10:
            hint = " (see CreateTrainingJob in the SageMaker API reference)"
        message = f"unknown member {abbreviate(str(value))!r}{place}{hint}"
        return Problem(path, message, at_key=True)
    if check is Check.MISSING:
        message = f"{where or 'the request'}: missing required member {finding.member!r}"
        return Problem(path, message, at_key=bool(path))
    if check is Check.ENUM:
        enum = list(finding.names)
        close = did_you_mean(value, enum) if len(enum) > 12 else ""
        choices = "" if close else f": use one of {', '.join(enum)}"
        text = close.replace(" (", "; ").rstrip(")") if close else choices
        return Problem(path, f"{where}: {abbreviate(value)!r} is not allowed{text}")
    if check is Check.PATTERN:
        return Problem(
            path,
            f"{where}: {abbreviate(value)!r} does not match AWS's pattern "
            f"{abbreviate(finding.pattern, 60)}",
        )
    low, high = finding.low, finding.high
    below = low is not None and (len(value) if check is Check.LENGTH else value) < low
    if check is Check.RANGE:
        bound = f"at least {low}" if below else f"at most {high}"
        return Problem(path, f"{where}: must be {bound}, got {value}")
    if kind == "string":
        if below:
            return Problem(path, f"{where}: must be at least {low} characters long")
        return Problem(path, f"{where}: must be at most {high} characters, got {len(value)}")
    bound = f"needs at least {low}" if below else f"allows at most {high}"
    return Problem(path, f"{where}: {bound} entries, got {len(value)}")


def dotted(path: YamlPath) -> str:
    """``InputDataConfig[0].DataSource``: a member's path in AWS's own spelling."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
