"""A resource's settings as a flat, JSON-ready mapping: what diffs, plans and renderers share.

``attributes(spec)`` is what a plan shows and stores; ``spec_from_attributes`` reads it back
(a saved plan is applied from these). Field paths are the configuration's key names, with map
entries as ``capacity[ml.p5.48xlarge]`` and ``tags[owner]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from quotactl.core.resources.desired import (
    UNLIMITED,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    RunnableTimeout,
    ShareSpec,
    Strategy,
)
from quotactl.core.resources.observed import Kind, Spec

if TYPE_CHECKING:
    from collections.abc import Mapping

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
Attributes = dict[str, JSONValue]

QUOTA_SHARE_POLICY = "quota_share"

IMMUTABLE: Mapping[Kind, frozenset[str]] = {
    Kind.ENVIRONMENT: frozenset(),
    Kind.POLICY: frozenset({"type"}),
    Kind.QUEUE: frozenset(),
    Kind.SHARE: frozenset({"queue"}),
}
"""Fields AWS cannot change in place: a difference there means delete + create (replace)."""


def attributes(spec: Spec, *, policy_type: str | None = None) -> Attributes:
    """The settings of ``spec`` in configuration terms (tags included, name excluded)."""
    tags: JSONValue = {k: spec.tags[k] for k in sorted(spec.tags)}
    if isinstance(spec, EnvironmentSpec):
        return {"capacity": _capacity(spec.capacity), "enabled": spec.enabled, "tags": tags}
    if isinstance(spec, PolicySpec):
        return {"type": policy_type or QUOTA_SHARE_POLICY, "tags": tags}
    if isinstance(spec, QueueSpec):
        timeout: JSONValue = None
        if spec.runnable_timeout is not None:
            reasons: list[JSONValue] = [*sorted(spec.runnable_timeout.reasons)]
            timeout = {"seconds": spec.runnable_timeout.seconds, "reasons": reasons}
        return {
            "environment": spec.environment,
            "policy": spec.policy,
            "priority": spec.priority,
            "enabled": spec.enabled,
            "runnable_timeout": timeout,
            "tags": tags,
        }
    borrow: JSONValue = None
    if spec.strategy is Strategy.LEND_AND_BORROW:
        borrow = "unlimited" if spec.borrow_limit == UNLIMITED else spec.borrow_limit
    return {
        "queue": spec.queue,
        "capacity": _capacity(spec.capacity),
        "sharing": spec.strategy.value.lower(),
        "borrow_limit": borrow,
        "in_share_preemption": spec.in_share_preemption,
        "enabled": spec.enabled,
        "tags": tags,
    }


def _capacity(capacity: Mapping[str, int]) -> JSONValue:
    return {k: capacity[k] for k in sorted(capacity)}


def flatten(attrs: Attributes) -> dict[str, JSONValue]:
    """One entry per comparable field: maps become ``name[key]``; lists stay whole."""
    flat: dict[str, JSONValue] = {}
    for name, value in attrs.items():
        if isinstance(value, dict) and name in ("capacity", "tags"):
            for key, item in value.items():
                flat[f"{name}[{key}]"] = item
        elif isinstance(value, dict):
            for key, item in value.items():
                flat[f"{name}.{key}"] = item
        else:
            flat[name] = value
    return flat


def top_field(path: str) -> str:
    """The attribute a field path belongs to: ``capacity[ml.g5.xlarge]`` -> ``capacity``."""
    for sep in ("[", "."):
        path = path.split(sep, 1)[0]
    return path


def spec_from_attributes(kind: Kind, name: str, attrs: Mapping[str, JSONValue]) -> Spec:
    """The inverse of ``attributes`` (a saved plan is applied from it); ValueError if malformed."""
    tags = _str_map(attrs.get("tags") or {})
    if kind is Kind.ENVIRONMENT:
        return EnvironmentSpec(
            name=name,
            capacity=_int_map(attrs["capacity"]),
            enabled=_bool(attrs["enabled"]),
            tags=tags,
        )
    if kind is Kind.POLICY:
        return PolicySpec(name=name, tags=tags)
    if kind is Kind.QUEUE:
        raw_timeout = attrs.get("runnable_timeout")
        timeout = None
        if isinstance(raw_timeout, dict):
            reasons = raw_timeout.get("reasons")
            if not isinstance(reasons, list):
                raise ValueError("runnable_timeout.reasons must be a list")
            timeout = RunnableTimeout(
                seconds=_int(raw_timeout.get("seconds")), reasons=tuple(str(r) for r in reasons)
            )
        return QueueSpec(
            name=name,
            environment=_str(attrs["environment"]),
            policy=_str(attrs["policy"]),
            priority=_int(attrs["priority"]),
            enabled=_bool(attrs["enabled"]),
            runnable_timeout=timeout,
            tags=tags,
        )
    borrow = attrs.get("borrow_limit")
    return ShareSpec(
        queue=_str(attrs["queue"]),
        name=name,
        capacity=_int_map(attrs["capacity"]),
        strategy=Strategy(_str(attrs["sharing"]).upper()),
        borrow_limit=UNLIMITED if borrow in (None, "unlimited") else _int(borrow),
        in_share_preemption=_bool(attrs["in_share_preemption"]),
        enabled=_bool(attrs["enabled"]),
        tags=tags,
    )


def _str(value: JSONValue) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def _int(value: JSONValue) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _bool(value: JSONValue) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _int_map(value: JSONValue) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a mapping, got {value!r}")
    return {str(k): _int(v) for k, v in value.items()}


def _str_map(value: JSONValue) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a mapping, got {value!r}")
    return {str(k): _str(v) for k, v in value.items()}
