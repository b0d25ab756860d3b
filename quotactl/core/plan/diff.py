"""``diff(desired, observed) -> Plan``: the whole planning decision, as a pure function.

Ownership is by the ``quotactl:stack`` tag: a live resource tagged with this stack and absent
from config is deleted; one without the tag (or with another stack's) is never touched, and
config naming it is an error (``unmanaged-resource``). A field AWS cannot change in place
(a share's queue, a policy's type) turns an update into a replace, and replacing a resource
replaces what hangs off it (a queue's shares), since AWS deletes those with it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.plan.adoption import refuse_unmanaged
from quotactl.core.plan.fingerprint import fingerprint
from quotactl.core.plan.impact import assess
from quotactl.core.plan.model import Action, Change, FieldChange, Plan
from quotactl.core.resources.attributes import IMMUTABLE, Attributes, attributes, flatten, top_field
from quotactl.core.resources.desired import (
    GOVERNOR_TAGS,
    DesiredState,
    EnvironmentSpec,
    QueueSpec,
    ShareSpec,
)
from quotactl.core.resources.observed import (
    Kind,
    ObservedResource,
    ObservedState,
    Spec,
    kind_of,
)
from quotactl.core.states import SETTLING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.core.apply.preconditions import Identity
    from quotactl.core.backend import StateReader
    from quotactl.core.resources.observed import LiveJob

_KIND_ORDER = {Kind.ENVIRONMENT: 0, Kind.POLICY: 1, Kind.QUEUE: 2, Kind.SHARE: 3}


def diff(desired: DesiredState, observed: ObservedState) -> Plan:
    """Compare config with live and return the plan that makes live match config."""
    stack = desired.stack
    live = observed.present()
    specs = desired.specs
    scope = tuple(sorted(s.address for s in specs))
    refuse_unmanaged(desired, observed)

    changes: dict[str, Change] = {}
    for spec in specs:
        current = live.get(spec.address)
        if current is None:
            changes[spec.address] = Change(kind_of(spec), Action.CREATE, None, spec)
        elif (change := _compare(current, spec)) is not None:
            changes[spec.address] = change
    wanted = set(scope)
    for address, current in live.items():
        if current.stack == stack and address not in wanted:
            changes[address] = Change(
                current.kind,
                Action.DELETE,
                current.spec,
                None,
                arn=current.arn,
                before_attributes=_attrs(current),
            )
    _pair_moved_shares(changes, live)
    _cascade_replacements(changes, live, stack, {s.address: s for s in specs})

    ordered = sorted(changes.values(), key=_display_order)
    with_impact = tuple(_with_impact(c, observed) for c in ordered)
    settling = tuple(
        sorted(
            address
            for address, r in live.items()
            if r.status in SETTLING and (r.stack == stack or address in wanted)
        )
    )
    return Plan(
        stack=stack,
        region=desired.region,
        account_id=desired.account_id,
        changes=with_impact,
        fingerprint=fingerprint(observed, stack, scope),
        scope=scope,
        settling=settling,
    )


def field_changes(kind: Kind, before: Attributes, after: Attributes) -> tuple[FieldChange, ...]:
    """Field-level differences, in attribute order; immutable fields force a replace."""
    flat_before, flat_after = flatten(before), flatten(after)
    paths = list(flat_after) + [p for p in flat_before if p not in flat_after]
    found: list[FieldChange] = []
    for path in paths:
        old, new = flat_before.get(path), flat_after.get(path)
        if not _same(old, new):
            immutable = top_field(path) in IMMUTABLE[kind]
            found.append(FieldChange(path, old, new, forces_replacement=immutable))
    return tuple(found)


def _compare(current: ObservedResource, spec: Spec) -> Change | None:
    kind = kind_of(spec)
    before = _attrs(current)
    fields = field_changes(kind, before, attributes(spec))
    if not fields:
        return None
    action = Action.REPLACE if any(f.forces_replacement for f in fields) else Action.UPDATE
    return Change(
        kind, action, current.spec, spec, arn=current.arn, before_attributes=before, fields=fields
    )


def _pair_moved_shares(changes: dict[str, Change], live: dict[str, ObservedResource]) -> None:
    """A share deleted from one queue and created (same name) on another is one replace."""
    created: dict[str, list[Change]] = defaultdict(list)
    deleted: dict[str, list[Change]] = defaultdict(list)
    for change in changes.values():
        if change.kind is Kind.SHARE and change.action is Action.CREATE:
            created[change.spec.name].append(change)
        elif change.kind is Kind.SHARE and change.action is Action.DELETE:
            deleted[change.spec.name].append(change)
    for name, news in created.items():
        olds = deleted.get(name, [])
        if len(news) != 1 or len(olds) != 1:
            continue
        new, old = news[0], olds[0]
        assert new.after is not None
        assert old.before is not None
        current = live[old.address]
        before = _attrs(current)
        del changes[old.address]
        changes[new.address] = Change(
            Kind.SHARE,
            Action.REPLACE,
            current.spec,
            new.after,
            arn=current.arn,
            before_attributes=before,
            fields=field_changes(Kind.SHARE, before, attributes(new.after)),
        )


def _cascade_replacements(
    changes: dict[str, Change],
    live: dict[str, ObservedResource],
    stack: str,
    wanted: dict[str, Spec],
) -> None:
    """Replacing a policy replaces the queues using it; replacing a queue, its shares."""
    for kind, dependant_kind in ((Kind.POLICY, Kind.QUEUE), (Kind.QUEUE, Kind.SHARE)):
        replaced = {
            c.spec.name for c in changes.values() if c.kind is kind and c.action is Action.REPLACE
        }
        for address, current in live.items():
            if (
                current.kind is not dependant_kind
                or current.stack != stack
                or address not in wanted
            ):
                continue
            parent = _parent(current.spec)
            if parent not in replaced:
                continue
            existing = changes.get(address)
            if existing is not None and existing.action is not Action.UPDATE:
                continue
            after = existing.after if existing is not None else wanted[address]
            changes[address] = Change(
                dependant_kind,
                Action.REPLACE,
                current.spec,
                after,
                arn=current.arn,
                before_attributes=_attrs(current),
                fields=existing.fields if existing is not None else (),
                reason=f"{kind.value}.{parent} is replaced",
            )


def _parent(spec: Spec) -> str | None:
    if isinstance(spec, QueueSpec):
        return spec.policy
    if isinstance(spec, ShareSpec):
        return spec.queue
    return None


def _with_impact(change: Change, observed: ObservedState) -> Change:
    jobs: Iterable[LiveJob] = observed.jobs
    if isinstance(change.before, EnvironmentSpec):
        served = served_by(observed, change.before.name)
        jobs = [j for j in observed.jobs if j.queue in served]
    impact = assess(change.action, change.before, change.after, tuple(jobs))
    if not impact:
        return change
    return replace(change, impact=impact)


def served_by(observed: ObservedState, environment: str) -> frozenset[str]:
    """The live queues that schedule onto ``environment``."""
    return frozenset(
        r.spec.name
        for r in observed.resources
        if isinstance(r.spec, QueueSpec) and r.spec.environment == environment
    )


def _display_order(change: Change) -> tuple[int, int, str]:
    rank = _KIND_ORDER[change.kind]
    if change.action is Action.DELETE:
        return (1, -rank, change.address)
    return (0, rank, change.address)


def _attrs(resource: ObservedResource) -> Attributes:
    return attributes(resource.spec, policy_type=resource.policy_type)


_PLAIN = (str, int, bool, type(None))


def _same(old: object, new: object) -> bool:
    """Equal as JSON: ``1`` and ``1.0`` and ``True`` differ. Most fields are plain values of
    one type, for which ``==`` says the same as comparing their JSON, at a fraction of the
    cost (a 1,000-share plan compares some 17,000 fields)."""
    if type(old) is type(new) and isinstance(old, _PLAIN):
        return old == new
    return _canonical(old) == _canonical(new)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def make_plan(desired: DesiredState, reader: StateReader, identity: Identity | None = None) -> Plan:
    """Read live state and diff it; live jobs are read only for queues a change may disturb."""
    return plan_with_live(desired, reader, identity)[0]


def plan_with_live(
    desired: DesiredState, reader: StateReader, identity: Identity | None = None
) -> tuple[Plan, ObservedState]:
    """The plan and the live state it was computed from; with ``identity``, the plan records
    the account and region it was computed against (``apply --plan`` refuses any other)."""
    observed = reader.observe(desired.stack, [q.name for q in desired.queues])
    observed = observed.without_tags(GOVERNOR_TAGS)
    plan = diff(desired, observed)
    at_risk = set(plan.queues_at_risk())
    for change in plan.changes:  # an environment's capacity may squeeze its queue's jobs
        if change.action is Action.UPDATE and isinstance(change.before, EnvironmentSpec):
            at_risk |= served_by(observed, change.before.name)
    if at_risk:
        observed = observed.with_jobs(reader.live_jobs(sorted(at_risk)))
        plan = diff(desired, observed)
    if identity is not None:
        plan = replace(plan, account_id=identity.account_id, region=identity.region)
    return plan, observed
