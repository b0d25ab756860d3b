"""Live resources -> configuration documents that round-trip (a plan on them shows no change).

Layout: ``platform.yaml`` holds the platform, environments and queues; ``teams/<team>.yaml``
one team each. Shares are grouped into teams by their ``quotactl:team`` tag (apply writes it),
else by share name (the config's default: a share is named after its team); shares of one
group whose extra tags differ become separate teams named ``<group>-<queue>``. A tag that is
not a valid team name is sanitised (it becomes a file name, so never a path) with a warning.
Platform tags are the tags every exported resource has in common.
What the config language cannot express (extra tags on environments or queues, a policy not
named ``<queue>-quota``) is returned as warnings: a plan would change those.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.config.export_policies import aging, based, budget, schedule, warn_unrecorded
from quotactl.core.govern.record import is_record_tag
from quotactl.core.resources.desired import (
    MANAGED_TAGS,
    TEAM_TAG,
    UNLIMITED,
    EnvironmentSpec,
    QueueSpec,
    ShareSpec,
    Strategy,
    address_of,
    policy_name_for,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from quotactl.core.resources.observed import ObservedResource, ObservedState

MAX_NAME = 128
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class Export:
    """Documents by relative path, plus what could not be expressed."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def combined(self) -> dict[str, Any]:
        """Every document merged into one (a single valid config file)."""
        merged: dict[str, Any] = {}
        for document in self.files.values():
            for key, value in document.items():
                if isinstance(value, list):
                    merged.setdefault(key, []).extend(value)
                else:
                    merged[key] = value
        return merged


def quota_queues(observed: ObservedState) -> list[str]:
    """Names of live job queues that use a quota-share scheduling policy."""
    present = observed.present()
    quota_policies = {r.spec.name for r in present.values() if r.policy_type == "quota_share"}
    return sorted(
        r.spec.name
        for r in present.values()
        if isinstance(r.spec, QueueSpec) and r.spec.policy in quota_policies
    )


def export(
    observed: ObservedState,
    queues: Sequence[str],
    *,
    stack: str,
    region: str,
    account_id: str | None,
    governed: Mapping[str, str] | None = None,
) -> Export:
    """The configuration that declares ``queues`` as they are live, for stack ``stack``:
    shares with their base settings, schedule and budget, queues with their aging, from the
    policy records apply wrote (``core.govern.record``). ``governed``: the policy the governor
    says is in force on a share (by address), to warn when a share has no records to give
    its base settings back."""
    present = observed.present()
    result = Export()
    chosen = [present[address_of("queue", q)] for q in queues if address_of("queue", q) in present]
    env_names = {r.spec.environment for r in chosen if isinstance(r.spec, QueueSpec)}
    envs = [
        r
        for r in present.values()
        if isinstance(r.spec, EnvironmentSpec) and r.spec.name in env_names
    ]
    names = {r.spec.name for r in chosen}
    shares = [
        r for r in present.values() if isinstance(r.spec, ShareSpec) and r.spec.queue in names
    ]
    policies = [
        present[a]
        for a in (
            address_of("policy", r.spec.policy) for r in chosen if isinstance(r.spec, QueueSpec)
        )
        if a in present
    ]
    everything = [*envs, *policies, *chosen, *shares]
    common = _common_tags(everything)

    platform: dict[str, Any] = {"name": stack, "region": region}
    if account_id:
        platform["account_id"] = account_id
    if common:
        platform["tags"] = common
    for r in [*envs, *policies, *chosen]:
        extra = _extra(r.spec.tags, common)
        if extra:
            result.warnings.append(
                f"{r.address} has tags {sorted(extra)} that config cannot give an "
                "environment, policy or queue: a plan would remove them"
            )
    result.files["platform.yaml"] = {
        "platform": platform,
        "environments": [_environment(r.spec) for r in envs if isinstance(r.spec, EnvironmentSpec)],
        "queues": [_queue(r.spec, result) for r in chosen if isinstance(r.spec, QueueSpec)],
    }
    warn_unrecorded(shares, governed or {}, result.warnings)
    for team, document in _teams(shares, common, result.warnings).items():
        result.files[f"teams/{team}.yaml"] = document
    return result


def _common_tags(resources: Sequence[ObservedResource]) -> dict[str, str]:
    if not resources:
        return {}
    items = set(resources[0].spec.tags.items())
    for r in resources[1:]:
        items &= set(r.spec.tags.items())
    return {k: v for k, v in sorted(items) if k not in MANAGED_TAGS and not is_record_tag(k)}


def _extra(tags: Mapping[str, str], common: Mapping[str, str]) -> dict[str, str]:
    return {
        k: v
        for k, v in sorted(tags.items())
        if k not in MANAGED_TAGS and k not in common and not is_record_tag(k)
    }


def _environment(spec: EnvironmentSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": spec.name, "capacity": dict(sorted(spec.capacity.items()))}
    if not spec.enabled:
        out["enabled"] = False
    return out


def _queue(spec: QueueSpec, result: Export) -> dict[str, Any]:
    if spec.policy != policy_name_for(spec.name):
        result.warnings.append(
            f"queue.{spec.name} uses scheduling policy {spec.policy!r}; config implies "
            f"{policy_name_for(spec.name)!r}: a plan would switch it"
        )
    out: dict[str, Any] = {
        "name": spec.name,
        "environment": spec.environment,
        "priority": spec.priority,
    }
    if not spec.enabled:
        out["enabled"] = False
    if spec.runnable_timeout is not None:
        out["runnable_timeout"] = {
            "seconds": spec.runnable_timeout.seconds,
            "reasons": sorted(spec.runnable_timeout.reasons),
        }
    aged = aging(spec, result.warnings)
    if aged is not None:
        out["aging"] = aged
    return out


def _teams(
    shares: Sequence[ObservedResource], common: Mapping[str, str], warnings: list[str]
) -> dict[str, dict[str, Any]]:
    by_tag: dict[str, list[ShareSpec]] = defaultdict(list)
    for r in sorted(shares, key=lambda r: r.address):
        if isinstance(r.spec, ShareSpec):
            by_tag[r.spec.tags.get(TEAM_TAG, r.spec.name)].append(r.spec)
    teams: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    for tag, specs in sorted(by_tag.items()):
        name = team_name(tag, fallback=specs[0].name)
        if name != tag:
            warnings.append(
                f"{specs[0].address}: {TEAM_TAG} tag {tag[:140]!r} is not a valid team name; "
                f"exported as team {name!r} (a plan would retag its shares)"
            )
        groups: dict[tuple[tuple[str, str], ...], list[ShareSpec]] = defaultdict(list)
        for spec in specs:
            groups[tuple(_extra(spec.tags, common).items())].append(spec)
        for tags, members in groups.items():
            wanted = name if len(groups) == 1 else team_name(f"{name}-{members[0].queue}")
            team = _unique(wanted, taken)
            document: dict[str, Any] = {"name": team}
            if tags:
                document["tags"] = dict(tags)
            recorded = budget(members, warnings)
            if recorded is not None:
                document["budget"] = recorded
            document["shares"] = [_share(s, team, warnings) for s in members]
            teams[team] = {"teams": [document]}
    return teams


def team_name(text: str, fallback: str = "team") -> str:
    """A configuration name (``[A-Za-z0-9_-]{1,128}``, so also a safe file name) for ``text``:
    other characters become ``-``, leading and trailing ones are dropped."""
    name = _UNSAFE.sub("-", text).strip("-")[:MAX_NAME]
    return name or _UNSAFE.sub("-", fallback).strip("-")[:MAX_NAME] or "team"


def _unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``...: distinct even on case-insensitive file systems."""
    candidate, n = name, 1
    while candidate.lower() in taken:
        n += 1
        suffix = f"-{n}"
        candidate = name[: MAX_NAME - len(suffix)] + suffix
    taken.add(candidate.lower())
    return candidate


def _share(spec: ShareSpec, team: str, warnings: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"queue": spec.queue}
    if spec.name != team:
        out["name"] = spec.name
    spec = based(spec, warnings)
    out["capacity"] = dict(sorted(spec.capacity.items()))
    out["sharing"] = spec.strategy.value.lower()
    if spec.strategy is Strategy.LEND_AND_BORROW:
        out["borrow_limit"] = "unlimited" if spec.borrow_limit == UNLIMITED else spec.borrow_limit
    if spec.in_share_preemption:
        out["in_share_preemption"] = True
    if not spec.enabled:
        out["enabled"] = False
    windows = schedule(spec, warnings)
    if windows:
        out["schedule"] = windows
    return out
