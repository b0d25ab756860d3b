"""Lookups and checks shared by the handlers: find a resource by name or ARN, capacity
limits, states that must settle before a change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from quotactl.core.states import CHANGING, State
from quotactl.emulator.account import request_checks as v
from quotactl.emulator.account.arns import name_or_arn
from quotactl.emulator.account.models import NUM_INSTANCES, Settling
from quotactl.emulator.errors import ClientException
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

S = TypeVar("S", bound=Settling)
MAX_CAPACITY_LIMITS = 5

LABELS = {
    "scheduling-policy": "scheduling policy",
    "service-environment": "service environment",
    "job-queue": "job queue",
    "quota-share": "quota share",
}


def find(ctx: Context, cls: type[S], value: str, field: str) -> S:
    """The resource ``value`` (name or ARN) names, or a ClientException saying what is missing."""
    label = LABELS[cls.KIND]
    name = name_or_arn(value, cls.KIND)
    if name is None:
        raise ClientException(f"{field} {value!r} is not a valid {label} name or ARN")
    record = ctx.tx.get(cls, name) if ctx.account.owns(value) else None
    if record is None:
        raise ClientException(f"{label} {value!r} does not exist")
    return record


def require_settled(record: Settling, action: str) -> None:
    """AWS refuses changes while a resource is still CREATING/UPDATING/DELETING."""
    if record.status in CHANGING:
        label = LABELS[record.KIND]
        raise ClientException(
            f"cannot {action} {label} {record.name!r} while its status is {record.status}; "
            "wait until it is VALID"
        )


def require_disabled(record: Settling) -> None:
    if record.state != State.DISABLED:
        label = LABELS[record.KIND]
        raise ClientException(
            f"{label} {record.name!r} must be DISABLED before it can be deleted "
            f"(its state is {record.state})"
        )


def capacity_limits(
    params: dict[str, Any], field: str, *, instance_types_only: bool, owner: str
) -> list[dict[str, Any]]:
    """1-5 ``{capacityUnit, maxCapacity}`` entries with distinct units and maxCapacity >= 1."""
    limits = v.array(params, field)
    if limits is None:
        raise ClientException(f"{field} is required")
    if not 1 <= len(limits) <= MAX_CAPACITY_LIMITS:
        raise ClientException(
            f"{field} of {owner} has {len(limits)} entries; use 1 to {MAX_CAPACITY_LIMITS}"
        )
    seen: set[str] = set()
    out = []
    for index, entry in enumerate(limits):
        where = f"{field}[{index}]"
        if not isinstance(entry, dict):
            raise ClientException(f"{where} must be an object with capacityUnit and maxCapacity")
        unit = v.required_string(entry, "capacityUnit", at=f"{where}.")
        count = v.integer(entry, "maxCapacity", 1, at=f"{where}.")
        if count is None:
            raise ClientException(f"{where}.maxCapacity is required")
        if unit == NUM_INSTANCES:
            if instance_types_only:
                raise ClientException(
                    f"{where}.capacityUnit NUM_INSTANCES is not allowed for {owner}: "
                    "quota management counts SageMaker instance types such as ml.m5.large"
                )
        elif unit not in training_instance_types():
            raise ClientException(
                f"{where}.capacityUnit {unit!r} is not a SageMaker training instance type "
                "(for example ml.m5.large)"
            )
        if unit in seen:
            raise ClientException(f"{where}.capacityUnit {unit!r} appears more than once")
        seen.add(unit)
        out.append({"maxCapacity": count, "capacityUnit": unit})
    if NUM_INSTANCES in seen and len(seen) > 1:
        raise ClientException(
            f"{field} of {owner} mixes NUM_INSTANCES with instance types; use one kind"
        )
    return out


def tag_new(ctx: Context, arn: str, params: dict[str, Any]) -> None:
    tags = v.tags(params.get("tags"))
    if tags:
        ctx.tx.set_tags(arn, tags)
