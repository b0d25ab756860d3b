"""Rules across values and files: duplicates, references, AWS limits, the sharing graph.

Runs only on files that passed the schema, so every value here has its documented type. Each
finding points at the key or value to change; a finding about two places cites the other one.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol, TypeVar

from quotactl.config.instance_types import training_instance_types
from quotactl.config.schema import Share
from quotactl.core.model import STACK_TAG, policy_name_for

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from quotactl.config.schema import ConfigFile, Environment, Platform, Queue, Team
    from quotactl.config.source import SourceMap, YamlPath
    from quotactl.errors import Diagnostic, Severity

MAX_SHARES_PER_QUEUE = 20
MAX_TAGS = 50
MAX_NAME_LENGTH = 128
RESERVED_TAG_PREFIXES = ("aws:", "quotactl:")
T = TypeVar("T")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)


@dataclass(frozen=True)
class Located(Generic[T]):
    """A validated value and where it was written."""

    item: T
    source: SourceMap
    path: YamlPath

    def report(
        self,
        *sub: str | int,
        message: str,
        at: Literal["key", "value"] = "value",
        severity: Severity = "error",
    ) -> Diagnostic:
        return self.source.diagnostic((*self.path, *sub), message, at=at, severity=severity)

    def cite(self, *sub: str | int, at: Literal["key", "value"] = "value") -> str:
        return self.source.cite((*self.path, *sub), at=at)


@dataclass(frozen=True)
class LocatedShare(Located[Share]):
    team: Team

    @property
    def name(self) -> str:
        return self.item.name or self.team.name

    def name_report(self, message: str) -> Diagnostic:
        """At the share's ``name``, or at the share itself when the name is the team's."""
        return self.report("name" if self.item.name else "queue", message=message)


@dataclass
class Inventory:
    """Every file's values, merged, each with its position."""

    platforms: list[Located[Platform]]
    environments: list[Located[Environment]]
    queues: list[Located[Queue]]
    teams: list[Located[Team]]
    shares: list[LocatedShare]

    @classmethod
    def of(cls, files: Sequence[tuple[ConfigFile, SourceMap]]) -> Inventory:
        inventory = cls([], [], [], [], [])
        for config, source in files:
            if config.platform is not None:
                inventory.platforms.append(Located(config.platform, source, ("platform",)))
            for i, env in enumerate(config.environments):
                inventory.environments.append(Located(env, source, ("environments", i)))
            for i, queue in enumerate(config.queues):
                inventory.queues.append(Located(queue, source, ("queues", i)))
            for i, team in enumerate(config.teams):
                inventory.teams.append(Located(team, source, ("teams", i)))
                for j, share in enumerate(team.shares):
                    path = ("teams", i, "shares", j)
                    inventory.shares.append(LocatedShare(share, source, path, team))
        return inventory


def check(inventory: Inventory, first_file: SourceMap) -> list[Diagnostic]:
    """Every cross-value finding, errors and warnings together."""
    found = _platform(inventory.platforms, first_file)
    found += _unique("environment", inventory.environments)
    found += _unique("queue", inventory.queues)
    found += _unique("team", inventory.teams)
    found += _tags(inventory)
    found += _instance_types(inventory)
    found += _queues(inventory)
    found += _shares(inventory)
    found += _sharing_graph(inventory)
    return found


def _platform(platforms: list[Located[Platform]], first_file: SourceMap) -> list[Diagnostic]:
    if not platforms:
        message = "no platform: declare 'platform:' (name, region) once, in any file"
        return [first_file.diagnostic((), message)]
    first = platforms[0]
    return [
        extra.report(
            message=f"platform is declared more than once (first at {first.cite(at='key')})",
            at="key",
        )
        for extra in platforms[1:]
    ]


def _unique(kind: str, values: Iterable[Located[N]]) -> list[Diagnostic]:
    first: dict[str, Located[N]] = {}
    found: list[Diagnostic] = []
    for value in values:
        earlier = first.setdefault(value.item.name, value)
        if earlier is not value:
            message = (
                f"{kind} {value.item.name!r} is defined twice (first at {earlier.cite('name')})"
            )
            found.append(value.report("name", message=message))
    return found


def _tags(inventory: Inventory) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    tagged: list[Located[Platform] | Located[Team]] = [*inventory.platforms, *inventory.teams]
    for owner in tagged:
        for key in owner.item.tags:
            if key.startswith(RESERVED_TAG_PREFIXES):
                message = f"tag key {key!r} is reserved ({' and '.join(RESERVED_TAG_PREFIXES)})"
                found.append(owner.report("tags", key, message=message, at="key"))
    platform_tags = set(inventory.platforms[0].item.tags) if inventory.platforms else set()
    for team in inventory.teams:
        count = len(platform_tags | set(team.item.tags)) + 1
        if team.item.tags and count > MAX_TAGS:
            message = (
                f"team {team.item.name!r}: its shares would carry {count} tags "
                f"(platform, team and {STACK_TAG}); AWS allows {MAX_TAGS}"
            )
            found.append(team.report("tags", message=message, at="key"))
    return found


def _instance_types(inventory: Inventory) -> list[Diagnostic]:
    known = training_instance_types()
    found: list[Diagnostic] = []
    owners: list[Located[Environment] | LocatedShare] = [
        *inventory.environments,
        *inventory.shares,
    ]
    for owner in owners:
        for instance_type in owner.item.capacity:
            if instance_type not in known:
                message = f"{instance_type!r} is not a SageMaker training instance type"
                close = difflib.get_close_matches(instance_type, sorted(known), n=1, cutoff=0.8)
                if close:
                    message += f" (did you mean {close[0]!r}?)"
                found.append(owner.report("capacity", instance_type, message=message, at="key"))
    return found


def _queues(inventory: Inventory) -> list[Diagnostic]:
    environments = _by_name(inventory.environments)
    served_by: dict[str, Located[Queue]] = {}
    found: list[Diagnostic] = []
    for queue in _by_name(inventory.queues).values():  # a duplicate is reported already
        name, env_name = queue.item.name, queue.item.environment
        if len(policy_name_for(name)) > MAX_NAME_LENGTH:
            message = (
                f"queue name is too long: its scheduling policy {policy_name_for(name)!r} "
                f"would exceed {MAX_NAME_LENGTH} characters"
            )
            found.append(queue.report("name", message=message))
        if env_name not in environments:
            message = f"queue {name!r}: environment {env_name!r} is not defined"
            found.append(
                queue.report("environment", message=_suggest(message, env_name, environments))
            )
            continue
        other = served_by.setdefault(env_name, queue)
        if other is not queue:
            message = (
                f"environment {env_name!r} already serves queue {other.item.name!r} "
                f"(at {other.cite('environment')}); AWS allows one queue per environment"
            )
            found.append(queue.report("environment", message=message))
    return found


def _shares(inventory: Inventory) -> list[Diagnostic]:
    environments = {name: env.item for name, env in _by_name(inventory.environments).items()}
    queues = {name: queue.item for name, queue in _by_name(inventory.queues).items()}
    first: dict[tuple[str, str], LocatedShare] = {}
    per_queue: dict[str, int] = defaultdict(int)
    known = training_instance_types()
    found: list[Diagnostic] = []
    for share in inventory.shares:
        item, queue_name = share.item, share.item.queue
        if item.borrow_limit is not None and item.sharing != "lend_and_borrow":
            message = f"borrow_limit applies only to sharing: lend_and_borrow, not {item.sharing}"
            found.append(share.report("borrow_limit", message=message, at="key"))
        earlier = first.setdefault((queue_name, share.name), share)
        if earlier is not share:
            message = (
                f"share {share.name!r} on queue {queue_name!r} is defined twice "
                f"(first at {earlier.cite()}, team {earlier.team.name!r})"
            )
            if not item.name or not earlier.item.name:
                message += "; a share's name defaults to its team's name"
            found.append(share.name_report(message))
        queue = queues.get(queue_name)
        if queue is None:
            message = f"share {share.name!r}: queue {queue_name!r} is not defined"
            found.append(share.report("queue", message=_suggest(message, queue_name, queues)))
            continue
        per_queue[queue_name] += 1
        if per_queue[queue_name] == MAX_SHARES_PER_QUEUE + 1:
            count = sum(1 for s in inventory.shares if s.item.queue == queue_name)
            message = (
                f"queue {queue_name!r} has {count} shares; "
                f"AWS allows at most {MAX_SHARES_PER_QUEUE} per queue"
            )
            found.append(share.report("queue", message=message))
        env = environments.get(queue.environment)
        if env is None:
            continue
        for instance_type in item.capacity:
            if instance_type in known and instance_type not in env.capacity:
                message = (
                    f"{instance_type} is not in environment {env.name!r} of queue {queue_name!r}"
                    f" (it has {', '.join(env.capacity)})"
                )
                found.append(share.report("capacity", instance_type, message=message, at="key"))
    return found


def _sharing_graph(inventory: Inventory) -> list[Diagnostic]:
    """Warnings: capacity nobody can use, shares that can never borrow, over-subscription.

    Only instance types that are valid and in the queue's environment are considered: the
    others are errors already.
    """
    environments = {name: env.item for name, env in _by_name(inventory.environments).items()}
    queues = _by_name(inventory.queues)
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
    for env in _by_name(inventory.environments).values():
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


def _by_name(values: Iterable[Located[N]]) -> dict[str, Located[N]]:
    """Name -> value; the first definition wins (a second one is reported as a duplicate)."""
    named: dict[str, Located[N]] = {}
    for value in values:
        named.setdefault(value.item.name, value)
    return named


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


def _suggest(message: str, name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    if close:
        return f"{message} (did you mean {close[0]!r}?)"
    defined = sorted(known)
    return f"{message} (defined: {', '.join(defined)})" if defined else message
