"""The sharing graph, as warnings: capacity no job can use, shares that can never borrow.

None of these is an error for AWS, but each means the config does not do what its author
probably meant: idle instances nobody may schedule onto, a lend_and_borrow share with nobody
to borrow from, or shares promised more than the environment holds.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Literal, TypeVar

from quotactl.config.inventory import by_name
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from quotactl.config.inventory import Inventory, Located, LocatedShare
    from quotactl.errors import Diagnostic

T = TypeVar("T")


def sharing_warnings(inventory: Inventory) -> list[Diagnostic]:
    """Warnings: capacity nobody can use, shares that can never borrow, over-subscription.

    Only instance types that are valid and in the queue's environment are considered: the
    others are errors already.
    """
    environments = {name: env.item for name, env in by_name(inventory.environments).items()}
    queues = by_name(inventory.queues)
    queue_of_env: dict[str, str] = {}
    for queue in queues.values():
        queue_of_env.setdefault(queue.item.environment, queue.item.name)
    usable: dict[str, set[str]] = {
        name: set(environments[queue.item.environment].capacity) & training_instance_types()
        for name, queue in queues.items()
        if queue.item.environment in environments
    }
    on_queue: dict[str, list[LocatedShare]] = defaultdict(list)
    for share in inventory.shares:
        on_queue[share.item.queue].append(share)
    found: list[Diagnostic] = []
    for queue_name, shares in on_queue.items():
        for share in shares:
            if share.item.sharing != "lend_and_borrow":
                continue
            for instance_type in share.item.capacity:
                if instance_type not in usable.get(queue_name, set()):
                    continue
                if not any(_lends(other, share, instance_type) for other in shares):
                    message = (
                        f"share {share.name!r} can never borrow {instance_type}: no other share "
                        f"on queue {queue_name!r} lends it (lend or lend_and_borrow)"
                    )
                    found.append(_warning(share, ("capacity", instance_type), message))
    for env in by_name(inventory.environments).values():
        serving = queue_of_env.get(env.item.name)
        if serving is None:
            message = f"environment {env.item.name!r} serves no queue: no job can use it"
            found.append(_warning(env, ("name",), message))
            continue
        for instance_type, capacity in env.item.capacity.items():
            if instance_type not in usable[serving]:
                continue
            claimed = sum(s.item.capacity.get(instance_type, 0) for s in on_queue[serving])
            problem = _claim_problem(env.item.name, instance_type, capacity, claimed)
            if problem:
                found.append(_warning(env, ("capacity", instance_type), problem))
    return found


def _lends(other: LocatedShare, share: LocatedShare, instance_type: str) -> bool:
    return (
        other is not share
        and other.item.sharing in ("lend", "lend_and_borrow")
        and instance_type in other.item.capacity
    )


def _claim_problem(env: str, instance_type: str, capacity: int, claimed: int) -> str | None:
    if claimed == 0:
        return (
            f"no share claims the {capacity} {instance_type} of environment {env!r}: "
            "no job can use them"
        )
    if claimed < capacity:
        return (
            f"shares claim {claimed} of the {capacity} {instance_type} of environment {env!r}: "
            f"no job can use the other {capacity - claimed}"
        )
    if claimed > capacity:
        return (
            f"environment {env!r} is over-subscribed on {instance_type}: "
            f"shares claim {claimed}, it has {capacity}"
        )
    return None


def _warning(owner: Located[T], sub: tuple[str, ...], message: str) -> Diagnostic:
    at: Literal["key", "value"] = "key" if sub[0] == "capacity" else "value"
    return owner.report(*sub, message=message, at=at, severity="warning")
