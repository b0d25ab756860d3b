"""Rules across values and files: duplicates, references, AWS limits (then the sharing graph).

Every value here passed the schema, so it has its documented type; values that did not are
left out (``Inventory.broken``), and a reference to one of them is not reported twice. Each
finding points at the key or value to change; a finding about two places cites the other one.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from typing import TYPE_CHECKING

from quotactl.config.inventory import by_name
from quotactl.config.sharing import sharing_warnings
from quotactl.core.resources.desired import (
    GOVERNOR_TAGS,
    MANAGED_TAGS,
    policy_name_for,
)
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.config.inventory import Inventory, Located, LocatedShare, N
    from quotactl.config.positions import SourceMap
    from quotactl.config.schema import Environment, Platform, Queue, Team
    from quotactl.errors import Diagnostic

MAX_SHARES_PER_QUEUE = 20
MAX_TAGS = 50
MAX_NAME_LENGTH = 128
RESERVED_TAG_PREFIXES = ("aws:", "quotactl:")
GOVERNOR_SLOTS = 2
"""Tags ``govern`` may add to a share (``quotactl:governed``, ``quotactl:budget``): their slots
in AWS's limit are kept free."""


def check(inventory: Inventory, first_file: SourceMap) -> list[Diagnostic]:
    """Every cross-value finding, errors and warnings together."""
    found = [] if inventory.broken_platform else _platform(inventory.platforms, first_file)
    found += _unique("environment", inventory.environments)
    found += _unique("queue", inventory.queues)
    found += _unique("team", inventory.teams)
    found += _tags(inventory)
    found += _instance_types(inventory)
    found += _queues(inventory)
    found += _shares(inventory)
    if inventory.complete:  # with values missing, the sharing graph would be misjudged
        found += sharing_warnings(inventory)
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
        count = len(platform_tags | set(team.item.tags)) + len(MANAGED_TAGS) + GOVERNOR_SLOTS
        if (team.item.tags or platform_tags) and count > MAX_TAGS:
            message = (
                f"team {team.item.name!r}: its shares would carry {count} tags "
                f"(platform, team, {' and '.join(MANAGED_TAGS)}, and {GOVERNOR_SLOTS} kept for "
                f"the governor's {' and '.join(GOVERNOR_TAGS[:GOVERNOR_SLOTS])}); "
                f"AWS allows {MAX_TAGS}"
            )
            found.append(team.report("tags", message=message, at="key"))
    return found + _record_tags(inventory, platform_tags)


def _record_tags(inventory: Inventory, platform_tags: set[str]) -> list[Diagnostic]:
    """The policy records apply writes on a share (a tag per window, its base settings, its
    team's budget) take tag slots too; a window's name becomes part of a tag key."""
    from quotactl.core.govern.record import MAX_WINDOW_NAME, WINDOW_TAG_PREFIX

    found: list[Diagnostic] = []
    for share in inventory.shares:
        schedule, budget = share.item.schedule, share.team.budget
        for index, window in enumerate(schedule):
            if len(window.name) > MAX_WINDOW_NAME:
                message = (
                    f"window name {window.name[:40]!r}... is {len(window.name)} characters: "
                    f"its record tag {WINDOW_TAG_PREFIX}<name> allows {MAX_WINDOW_NAME} at most"
                )
                found.append(share.report("schedule", index, "name", message=message))
        records = len(schedule) + (1 if schedule or budget else 0) + (1 if budget else 0)
        others = len(platform_tags | set(share.team.tags)) + len(MANAGED_TAGS) + GOVERNOR_SLOTS
        if records and others <= MAX_TAGS < others + records:
            message = (
                f"share {share.item.queue}/{share.name} would carry {others + records} tags: "
                f"{others} (platform, team, managed and the governor's) and {records} policy "
                f"records (one per schedule window, its base settings"
                f"{', its budget' if budget else ''}); AWS allows {MAX_TAGS}"
            )
            where = "schedule" if schedule else "queue"
            found.append(share.report(where, message=message, at="key"))
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
    environments = by_name(inventory.environments)
    served_by: dict[str, Located[Queue]] = {}
    found: list[Diagnostic] = []
    for queue in by_name(inventory.queues).values():  # a duplicate is reported already
        name, env_name = queue.item.name, queue.item.environment
        if len(policy_name_for(name)) > MAX_NAME_LENGTH:
            message = (
                f"queue name is too long: its scheduling policy {policy_name_for(name)!r} "
                f"would exceed {MAX_NAME_LENGTH} characters"
            )
            found.append(queue.report("name", message=message))
        if env_name not in environments and inventory.is_broken("environments", env_name):
            continue
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
    environments = {name: env.item for name, env in by_name(inventory.environments).items()}
    queues = {name: queue.item for name, queue in by_name(inventory.queues).items()}
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
        if queue is None and inventory.is_broken("queues", queue_name):
            continue
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


def _suggest(message: str, name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    if close:
        return f"{message} (did you mean {close[0]!r}?)"
    defined = sorted(known)
    return f"{message} (defined: {', '.join(defined)})" if defined else message
