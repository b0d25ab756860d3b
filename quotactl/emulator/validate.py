"""Server-side checks that AWS makes and botocore does not (botocore checks types only).

Every failure is a ``ClientException`` whose message names the field and the value, so a
user reading it in a terminal knows what to change.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from typing import Any

from quotactl.emulator.arns import NAME
from quotactl.emulator.errors import ClientException

Params = dict[str, Any]
MAX_TAGS = 50


def required(params: Params, field: str) -> Any:
    value = params.get(field)
    if value is None:
        raise ClientException(f"{field} is required")
    return value


def string(params: Params, field: str, *, default: str | None = None) -> str | None:
    value = params.get(field, default)
    if value is not None and not isinstance(value, str):
        raise ClientException(f"{field} must be a string, got {value!r}")
    return value


def required_string(params: Params, field: str) -> str:
    value = string(params, field)
    if value is None:
        raise ClientException(f"{field} is required")
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
    params: Params, field: str, low: int, high: int | None = None, *, default: int | None = None
) -> int | None:
    value = params.get(field, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClientException(f"{field} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ClientException(f"{field} must be {bounds}, got {value}")
    return value


def enum(params: Params, field: str, allowed: Iterable[str], *, default: str | None = None) -> str:
    value = params.get(field, default)
    choices = tuple(allowed)
    if value not in choices:
        if value is None:
            raise ClientException(f"{field} is required (one of {', '.join(choices)})")
        raise ClientException(f"{field} {value!r} is invalid: use one of {', '.join(choices)}")
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
        if data["op"] == operation and isinstance(data["after"], int):
            return int(data["after"])
    except (ValueError, KeyError, TypeError, binascii.Error):
        pass
    raise ClientException(f"nextToken {token!r} is invalid for {operation}")
