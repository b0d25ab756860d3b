"""The configuration's value checks applied to one resource's settings (a saved plan's values).

``apply --plan FILE`` must refuse a value that ``validate`` would refuse, without a second
copy of the rules: each spec is turned back into the configuration's own shape and checked by
the same pydantic models (names, ranges, 1-5 capacity entries, tag lengths) and the same
instance-type list (botocore's SageMaker model). ``VALUE_CHECKS`` implements
``quotactl.core.plan.verify.ValueChecks``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.config.checks import MAX_NAME_LENGTH, MAX_TAGS, RESERVED_TAG_PREFIXES
from quotactl.core.resources.desired import (
    MANAGED_TAGS,
    UNLIMITED,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    ShareSpec,
    policy_name_for,
)
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pydantic import BaseModel

    from quotactl.core.resources.observed import Spec


class ConfigValueChecks:
    """``validate``'s per-value rules, for values that did not come from a YAML file."""

    def platform_problems(self, stack: str, region: str, account_id: str) -> list[str]:
        from quotactl.config.schema import Platform

        data = {"name": stack, "region": region, "account_id": account_id}
        return _problems(Platform, data, "platform")

    def name_problems(self, name: str) -> list[str]:
        from pydantic import TypeAdapter

        from quotactl.config.schema import Name

        return _adapter_problems(TypeAdapter(Name), name, f"name {name[:140]!r}")

    def spec_problems(self, spec: Spec) -> list[str]:
        from quotactl.config.schema import Environment, Queue, Share

        problems: list[str] = []
        if isinstance(spec, EnvironmentSpec):
            data: dict[str, Any] = {
                "name": spec.name,
                "capacity": dict(spec.capacity),
                "enabled": spec.enabled,
            }
            problems += _problems(Environment, data)
        elif isinstance(spec, PolicySpec):
            problems += self.name_problems(spec.name)
        elif isinstance(spec, QueueSpec):
            data = {
                "name": spec.name,
                "environment": spec.environment,
                "priority": spec.priority,
                "enabled": spec.enabled,
            }
            if spec.runnable_timeout is not None:
                data["runnable_timeout"] = {
                    "seconds": spec.runnable_timeout.seconds,
                    "reasons": list(spec.runnable_timeout.reasons),
                }
            problems += _problems(Queue, data)
            if spec.policy != policy_name_for(spec.name):
                problems.append(f"its policy must be {policy_name_for(spec.name)}")
            if len(policy_name_for(spec.name)) > MAX_NAME_LENGTH:
                problems.append("the name is too long for its policy's name")
        else:
            data = {
                "queue": spec.queue,
                "name": spec.name,
                "capacity": dict(spec.capacity),
                "sharing": spec.strategy.value.lower(),
                "in_share_preemption": spec.in_share_preemption,
                "enabled": spec.enabled,
            }
            if spec.strategy.borrows:
                data["borrow_limit"] = (
                    "unlimited" if spec.borrow_limit == UNLIMITED else spec.borrow_limit
                )
            elif spec.borrow_limit != UNLIMITED:
                problems.append("borrow_limit applies only to lend_and_borrow")
            problems += _problems(Share, data)
        if isinstance(spec, EnvironmentSpec | ShareSpec):
            known = training_instance_types()
            problems += [
                f"{t[:140]!r} is not a SageMaker training instance type"
                for t in spec.capacity
                if t not in known
            ]
        return problems + _tag_problems(spec.tags)


def _tag_problems(tags: Mapping[str, str]) -> list[str]:
    from quotactl.config.schema import Team
    from quotactl.core.govern.record import MAX_VALUE, is_record_tag

    user = {k: v for k, v in tags.items() if k not in MANAGED_TAGS and not is_record_tag(k)}
    problems = _problems(Team, {"name": "t", "tags": user})
    reserved = [k for k in user if k.startswith(RESERVED_TAG_PREFIXES)]
    problems += [f"tag key {k[:140]!r} is reserved" for k in reserved]
    problems += [
        f"tag {k[:140]!r}: its value is longer than {MAX_VALUE} characters"
        for k, v in tags.items()
        if is_record_tag(k) and len(v) > MAX_VALUE
    ]
    if len(tags) > MAX_TAGS:
        problems.append(f"{len(tags)} tags; AWS allows {MAX_TAGS}")
    return problems


def _problems(model: type[BaseModel], data: dict[str, Any], where: str = "") -> list[str]:
    from pydantic import ValidationError

    try:
        model.model_validate(data, strict=True)
    except ValidationError as exc:
        return [_message(where, e) for e in exc.errors()]
    return []


def _adapter_problems(adapter: Any, value: object, where: str) -> list[str]:
    from pydantic import ValidationError

    try:
        adapter.validate_python(value, strict=True)
    except ValidationError as exc:
        return [_message(where, e) for e in exc.errors()]
    return []


def _message(where: str, error: Any) -> str:
    location = ".".join(str(p)[:140] for p in error.get("loc", ()))
    place = " ".join(p for p in (where, location) if p)
    return f"{place}: {error.get('msg', 'invalid')}" if place else str(error.get("msg"))


VALUE_CHECKS = ConfigValueChecks()
