"""Server-side rules AWS enforces that botocore's model cannot state.

The model's own rules (types, required and unknown members, enums, lengths, ranges, int32)
are checked for every request before its handler runs (``shapes``, called by ``wire``);
what is here is only what AWS documents beyond them (name formats, ranges given in prose,
fair-share identifiers, pagination tokens). Every failure is a ``ClientException`` whose
message names the member and the value, so a user reading it knows what to change.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from quotactl.emulator.account.arns import NAME
from quotactl.emulator.errors import ClientException
from quotactl.emulator.wire import rest_json as wire, shapes

Params = dict[str, Any]
MAX_TAGS = 50
MAX_POSITION = 2**63 - 1  # a pagination position is a SQLite rowid
FAIRSHARE_RANGES = {"shareDecaySeconds": (0, 604_800), "computeReservation": (0, 99)}
WEIGHT_FACTOR = (0.0001, 999.9999)
MAX_SHARE_IDENTIFIERS = 500
SHARE_IDENTIFIER = re.compile(r"[A-Za-z0-9]{1,255}\*?")


def required(params: Params, field: str) -> Any:
    value = params.get(field)
    if value is None:
        raise ClientException(f"{field} is required")
    return value


def string(params: Params, field: str, *, default: str | None = None, at: str = "") -> str | None:
    value = params.get(field, default)
    if value is not None and not isinstance(value, str):
        raise ClientException(f"{at}{field} must be a string, got {shapes.shown(value)}")
    return value


def required_string(params: Params, field: str, *, at: str = "") -> str:
    """``params[field]``, a string; ``at`` is the path of ``params`` in the request."""
    value = string(params, field, at=at)
    if value is None:
        raise ClientException(f"{at}{field} is required")
    return value


def name(params: Params, field: str) -> str:
    value = required_string(params, field)
    if not NAME.fullmatch(value):
        raise ClientException(
            f"{field} {value!r} is invalid: use 1 to 128 letters, digits, hyphens (-) "
            "and underscores (_)"
        )
    return value


def integer(
    params: Params,
    field: str,
    low: int,
    high: int | None = None,
    *,
    default: int | None = None,
    at: str = "",
) -> int | None:
    value = params.get(field, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClientException(f"{at}{field} must be an integer, got {shapes.shown(value)}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ClientException(f"{at}{field} must be {bounds}, got {shapes.shown(value)}")
    return value


def enum(
    params: Params,
    field: str,
    allowed: Iterable[str],
    *,
    default: str | None = None,
    at: str = "",
) -> str:
    value = params.get(field, default)
    choices = tuple(allowed)
    if value not in choices:
        if value is None:
            raise ClientException(f"{at}{field} is required (one of {', '.join(choices)})")
        raise ClientException(
            f"{at}{field} {shapes.shown(value)} is invalid: use one of {', '.join(choices)}"
        )
    return str(value)


def struct(params: Params, field: str) -> Params | None:
    value = params.get(field)
    if value is not None and not isinstance(value, dict):
        raise ClientException(f"{field} must be an object, got {value!r}")
    return value


def array(params: Params, field: str) -> list[Any] | None:
    value = params.get(field)
    if value is not None and not isinstance(value, list):
        raise ClientException(f"{field} must be a list, got {value!r}")
    return value


def tags(value: Any, field: str = "tags") -> dict[str, str]:
    """AWS's tag rules: 1-50 entries, keys 1-128 characters, values up to 256, no ``aws:``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ClientException(f"{field} must be a map of strings, got {value!r}")
    if len(value) > MAX_TAGS:
        raise ClientException(f"{field} has {len(value)} entries; at most {MAX_TAGS} are allowed")
    for key, tag_value in value.items():
        if not isinstance(key, str) or not 1 <= len(key) <= 128:
            raise ClientException(f"tag key {key!r} must be 1 to 128 characters")
        if key.lower().startswith("aws:"):
            raise ClientException(f"tag key {key!r} is invalid: the aws: prefix is reserved")
        if not isinstance(tag_value, str) or len(tag_value) > 256:
            raise ClientException(
                f"value of tag {key!r} must be a string of at most 256 characters"
            )
    return dict(value)


def max_results(params: Params) -> int:
    value = integer(params, "maxResults", 1, 100)
    return 100 if value is None else value


def encode_token(operation: str, position: int) -> str:
    raw = json.dumps({"op": operation, "after": position}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def decode_token(params: Params, operation: str) -> int | None:
    """The position a ``nextToken`` from the same operation points at (None: from the start)."""
    token = params.get("nextToken")
    if token is None:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(str(token).encode()))
        after = data["after"]
        if data["op"] == operation and type(after) is int and 0 <= after <= MAX_POSITION:
            return after
    except (ValueError, KeyError, TypeError, RecursionError, binascii.Error):
        pass
    raise ClientException(f"nextToken {shapes.shown(token)} is invalid for {operation}")


def fairshare_policy(policy: Params) -> Params:
    """AWS's documented bounds of a fair-share policy (the model states none of them)."""
    for member, (low, high) in FAIRSHARE_RANGES.items():
        integer(policy, member, low, high, at="fairsharePolicy.")
    entries = policy.get("shareDistribution") or []
    if len(entries) > MAX_SHARE_IDENTIFIERS:
        raise ClientException(
            f"fairsharePolicy.shareDistribution has {len(entries)} entries; at most "
            f"{MAX_SHARE_IDENTIFIERS} are allowed"
        )
    seen: list[str] = []
    for index, entry in enumerate(entries):
        where = f"fairsharePolicy.shareDistribution[{index}]"
        identifier = entry["shareIdentifier"]
        if not SHARE_IDENTIFIER.fullmatch(identifier):
            raise ClientException(
                f"{where}.shareIdentifier {shapes.shown(identifier)} is invalid: use up to 255 "
                "letters and digits, optionally followed by an asterisk (*)"
            )
        weight = entry.get("weightFactor")
        if weight is not None and not WEIGHT_FACTOR[0] <= weight <= WEIGHT_FACTOR[1]:
            raise ClientException(
                f"{where}.weightFactor must be between {WEIGHT_FACTOR[0]} and "
                f"{WEIGHT_FACTOR[1]}, got {weight}"
            )
        clash = next((other for other in seen if _overlap(other, identifier)), None)
        if clash is not None:
            raise ClientException(
                f"{where}.shareIdentifier {identifier!r} overlaps {clash!r}; the share "
                "identifiers of a fair-share policy cannot overlap"
            )
        seen.append(identifier)
    return policy


def _overlap(one: str, other: str) -> bool:
    if one == other:
        return True
    return (one.endswith("*") and other.startswith(one[:-1])) or (
        other.endswith("*") and one.startswith(other[:-1])
    )


def conforms(value: Any, service: str, shape: str) -> bool:
    """Whether a value fits an input shape of ``service``'s botocore model."""
    model = shapes.service_model(service)
    return not shapes.problems(value, model.shape_for(shape))


# State files from older versions may hold what the emulator once accepted unchecked; what
# does not fit the model now is left out when read (it could fail every request otherwise).
def stored_time_limits(actions: Any) -> list[dict[str, Any]]:
    """A job queue's stored jobStateTimeLimitActions, without entries that do not fit."""
    found = actions if isinstance(actions, list) else []
    return [a for a in found if conforms(a, "batch", "JobStateTimeLimitAction")]


def stored_fairshare(policy: Any) -> dict[str, Any] | None:
    """A stored fairsharePolicy, or ``{}`` if it does not fit the model."""
    if policy is None or conforms(policy, "batch", "FairsharePolicy"):
        return policy  # type: ignore[no-any-return]
    return {}


TRAINING_MEMBERS = {"ResourceConfig": "ResourceConfig", "StoppingCondition": "StoppingCondition"}


class PayloadProblem(ValueError):
    """A serviceRequestPayload the emulator cannot read (SageMaker would refuse it too)."""


def training_request(payload: str) -> dict[str, Any]:
    """The CreateTrainingJob request in a serviceRequestPayload, checked where the emulator
    reads it (``ResourceConfig``, ``StoppingCondition``: types and SageMaker's ranges).

    AWS Batch passes the payload on unchecked, so a problem is not a 400: the caller fails
    the job when it leaves SUBMITTED, with SageMaker's ValidationException.
    """
    try:
        request = wire.parse_json(payload, "serviceRequestPayload")
    except ClientException as exc:
        raise PayloadProblem(exc.message) from exc
    if not isinstance(request, dict):
        raise PayloadProblem("serviceRequestPayload must be a JSON object")
    model = shapes.service_model("sagemaker")
    found: list[str] = []
    for member, shape in TRAINING_MEMBERS.items():
        if member in request:
            found += shapes.problems(
                request[member], model.shape_for(shape), root=member, lenient=True
            )
    if found:
        raise PayloadProblem(shapes.report(found))
    return request
