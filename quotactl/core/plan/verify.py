"""A saved plan is verified, not trusted: what ``apply --plan FILE`` checks before anything else.

A plan file is read back only if it is exactly what ``plan --out`` writes: within the size and
nesting limits, signed with ``QUOTACTL_PLAN_KEY`` when one is set (both checked on its bytes,
by ``quotactl.core.plan.envelope``), and identical to the document quotactl re-derives from its own
``before`` and ``after`` values (fields, actions, summary, addresses), with every value valid by the
configuration's value checks and every runtime impact consistent with the change it is attached to.
Ownership, staleness and the account are checked against live state, under the apply lock
(``quotactl.core.apply.preconditions``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from quotactl.core.plan.diff import field_changes
from quotactl.core.plan.document import FORMAT_VERSION, from_document, to_document
from quotactl.core.plan.envelope import (
    SIGNATURE_KEY,
    check_signature,
    invalid,
    parse,
)
from quotactl.core.plan.impact import squeezed_message
from quotactl.core.plan.model import Action, Change, Effect
from quotactl.core.resources.attributes import attributes
from quotactl.core.resources.desired import STACK_TAG, EnvironmentSpec, QueueSpec, ShareSpec
from quotactl.core.resources.observed import Kind, Ref
from quotactl.errors import PlanError

if TYPE_CHECKING:
    from quotactl.core.plan.model import FieldChange, Impact, Plan
    from quotactl.core.resources.attributes import JSONValue
    from quotactl.core.resources.observed import Spec

_FINGERPRINT = re.compile(r"sha256:[0-9a-f]{64}")
_PREEMPTIBLE = re.compile(r"usage of (\S+) is (\d+), above the new limit (\d+): ")


class ValueChecks(Protocol):
    """The configuration's value checks (names, ranges, instance types), injected by the caller
    so that they are written once, in ``quotactl.config``."""

    def platform_problems(self, stack: str, region: str, account_id: str) -> list[str]: ...

    def name_problems(self, name: str) -> list[str]: ...

    def spec_problems(self, spec: Spec) -> list[str]: ...


# -- verifying --------------------------------------------------------------------------


def load(data: bytes, checks: ValueChecks, *, key: str | None) -> Plan:
    """The plan in a saved file, if it passes every check that needs no live state."""
    document = parse(data)
    if not isinstance(document, dict):
        raise invalid("it is not a JSON object")
    check_signature(document, key)
    return verify(document, checks)


def verify(document: dict[str, JSONValue], checks: ValueChecks) -> Plan:
    """Re-derive the plan from its ``before``/``after`` values; refuse any disagreement."""
    if document.get("format_version") != FORMAT_VERSION:
        raise invalid(
            f"format_version {document.get('format_version')!r} is not {FORMAT_VERSION!r}"
        )
    account = document.get("account_id")
    if not isinstance(account, str):
        raise invalid("account_id is missing (plan records the account it was computed against)")
    try:
        read = from_document(document)
    except PlanError as exc:
        raise invalid(exc.message.removeprefix("not a quotactl plan file: ")) from exc
    problems = checks.platform_problems(read.stack, read.region, account)
    fingerprint = document.get("fingerprint")
    if not isinstance(fingerprint, str) or not _FINGERPRINT.fullmatch(fingerprint):
        problems.append("fingerprint is not sha256:<64 hex digits>")
    problems += _addresses("scope", read.scope, checks)
    problems += _addresses("settling", read.settling, checks)
    if problems:
        raise invalid("; ".join(problems))
    plan = replace(read, changes=tuple(_rederive(c, read, checks) for c in read.changes))
    _check_scope(plan)
    unsigned = {k: v for k, v in document.items() if k != SIGNATURE_KEY}
    difference = _first_difference(to_document(plan), unsigned)
    if difference is not None:
        raise invalid(f"{difference} disagrees with the plan's own before/after values")
    return plan


def _addresses(what: str, addresses: tuple[str, ...], checks: ValueChecks) -> list[str]:
    problems: list[str] = []
    for address in addresses:
        try:
            ref = Ref.parse(address)
        except ValueError:
            problems.append(f"{what} holds {address!r}, not a resource address")
            continue
        names = [ref.name] + ([ref.queue] if ref.queue is not None else [])
        bad = [p for n in names for p in checks.name_problems(n)]
        if bad or ref.address != address:
            problems.append(f"{what} holds {address!r}, not a resource address")
    if list(addresses) != sorted(set(addresses)):
        problems.append(f"{what} is not a sorted list of distinct addresses")
    return problems


def _rederive(change: Change, plan: Plan, checks: ValueChecks) -> Change:
    """The change as ``diff`` would have made it from the same before and after."""
    where = change.address
    problems: list[str] = []
    for spec, side in ((change.before, "before"), (change.after, "after")):
        if spec is None:
            continue
        names = [spec.name] + ([spec.queue] if isinstance(spec, ShareSpec) else [])
        problems += [f"{side}: {p}" for n in names for p in checks.name_problems(n)]
        if spec.tags.get(STACK_TAG) != plan.stack:
            problems.append(f"{side} is not tagged {STACK_TAG}={plan.stack}")
    if change.after is not None:
        problems += [f"after: {p}" for p in checks.spec_problems(change.after)]
    if change.before is not None:
        problems += _live_side(change, plan)
    elif change.arn is not None:
        problems.append("a create has no ARN yet")
    if problems:
        raise invalid(f"{where}: " + "; ".join(problems))
    if change.after is not None and change.before is not None:
        assert change.before_attributes is not None
        fields = field_changes(change.kind, change.before_attributes, attributes(change.after))
        action = _action(change, fields, plan)
    else:
        fields = ()
        action = Action.CREATE if change.before is None else Action.DELETE
    rederived = replace(change, action=action, fields=fields)
    _check_impact(rederived)
    return rederived


def _live_side(change: Change, plan: Plan) -> list[str]:
    """``before`` is what live held, as ``plan`` writes it, and the ARN is that account's."""
    assert change.before is not None
    problems: list[str] = []
    written = change.before_attributes or {}
    policy_type = written.get("type") if change.kind is Kind.POLICY else None
    as_written = attributes(
        change.before, policy_type=policy_type if isinstance(policy_type, str) else None
    )
    if _first_difference(as_written, written) is not None:
        problems.append("before is not in the form plan writes")
    prefix = f":batch:{plan.region}:{plan.account_id}:"
    arn = change.arn
    if not isinstance(arn, str) or not arn.startswith("arn:aws") or prefix not in arn:
        problems.append(f"arn {arn!r} is not an AWS Batch ARN of {plan.account_id} {plan.region}")
    return problems


def _action(change: Change, fields: tuple[FieldChange, ...], plan: Plan) -> Action:
    forced = any(f.forces_replacement for f in fields)
    if forced or change.previous_address is not None:
        if change.reason is not None:
            raise invalid(f"{change.address}: a reason is given for a replace that needs none")
        return Action.REPLACE
    if change.reason is not None:
        parent = _parent_ref(change.before)
        replaced = {c.address for c in plan.changes if c.action is Action.REPLACE}
        if (
            parent is None
            or change.reason != f"{parent.address} is replaced"
            or parent.address not in replaced
        ):
            raise invalid(f"{change.address}: replaced because {change.reason!r}, which is not so")
        return Action.REPLACE
    if not fields:
        raise invalid(f"{change.address}: an {change.action.value} that changes nothing")
    return Action.UPDATE


def _parent_ref(spec: Spec | None) -> Ref | None:
    if isinstance(spec, QueueSpec):
        return Ref(Kind.POLICY, spec.policy)
    if isinstance(spec, ShareSpec):
        return Ref(Kind.QUEUE, spec.queue)
    return None


def _check_scope(plan: Plan) -> None:
    scope = set(plan.scope)
    for change in plan.changes:
        if change.action is Action.DELETE and change.address in scope:
            raise invalid(f"{change.address} is deleted but the configuration declares it")
        if change.action is not Action.DELETE and change.address not in scope:
            raise invalid(f"{change.address} is changed but the configuration does not declare it")


def _check_impact(change: Change) -> None:
    """Each impact is one ``assess`` could attach to this change, with consistent numbers."""
    before, after = change.before, change.after
    for impact in change.impact:
        if isinstance(before, EnvironmentSpec) and impact.effect is Effect.SQUEEZED:
            if not _squeeze_consistent(impact, change.action, after):
                raise invalid(f"{change.address}: impact {impact.message!r} does not follow")
            continue
        if not isinstance(before, QueueSpec | ShareSpec) or not impact.jobs:
            raise invalid(f"{change.address}: an impact on a change that stops no job")
        what = "share" if isinstance(before, ShareSpec) else "queue"
        foreign = [j.job_id for j in impact.jobs if not _owns(before, j.share)]
        if foreign:
            raise invalid(f"{change.address}: impact names jobs of another share ({foreign[0]})")
        if not _consistent(impact, change.action, before, after, what):
            raise invalid(f"{change.address}: impact {impact.message!r} does not follow from it")


def _squeeze_consistent(impact: Impact, action: Action, after: Spec | None) -> bool:
    """A lowered environment capacity: the message's figures are the jobs' and the spec's."""
    if action is not Action.UPDATE or not isinstance(after, EnvironmentSpec) or not impact.jobs:
        return False
    types = {t for j in impact.jobs for t in j.instances}
    for itype in types:
        usage = sum(j.instances.get(itype, 0) for j in impact.jobs)
        capacity = after.capacity.get(itype, 0)
        if usage > capacity and impact.message == squeezed_message(itype, usage, capacity):
            return True
    return False


def _owns(spec: QueueSpec | ShareSpec, share: str | None) -> bool:
    return not isinstance(spec, ShareSpec) or share == spec.name


def _consistent(
    impact: Impact, action: Action, before: QueueSpec | ShareSpec, after: Spec | None, what: str
) -> bool:
    n = len(impact.jobs)
    count = f"{n} job{'s' if n != 1 else ''}"
    if impact.effect is Effect.TERMINATED:
        verb = {Action.DELETE: "deleting", Action.REPLACE: "replacing"}.get(action)
        return verb is not None and impact.message == f"{verb} the {what} terminates {count}"
    if impact.effect is Effect.DISABLED:
        disabling = (
            isinstance(after, QueueSpec | ShareSpec) and before.enabled and not after.enabled
        )
        expected = f"disabling the {what} refuses new jobs; {count} may still finish"
        return action is Action.UPDATE and disabling and impact.message == expected
    match = _PREEMPTIBLE.match(impact.message)
    if match is None or action is not Action.UPDATE or not isinstance(after, ShareSpec):
        return False
    itype, usage, limit = match.group(1), int(match.group(2)), int(match.group(3))
    held = sum(j.instances.get(itype, 0) for j in impact.jobs)
    verb = "becomes" if n == 1 else "become"
    return (
        limit == after.capacity.get(itype, 0)
        and usage > limit
        and 0 < held <= usage
        and impact.message.endswith(f": {count} {verb} preemptible")
    )


def _first_difference(expected: JSONValue, found: JSONValue, path: str = "") -> str | None:
    """The first path where two JSON values differ (iteratively bounded by MAX_DEPTH)."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in [*expected, *(k for k in found if k not in expected)]:
            if key not in expected:
                return f"{path}.{key} (not a field plan writes)".lstrip(".")
            if key not in found:
                return f"{path}.{key} (missing)".lstrip(".")
            inner = _first_difference(expected[key], found[key], f"{path}.{key}")
            if inner is not None:
                return inner.lstrip(".")
        return None
    if isinstance(expected, list) and isinstance(found, list):
        if len(expected) != len(found):
            return f"{path} (length)".lstrip(".")
        for index, (a, b) in enumerate(zip(expected, found, strict=True)):
            inner = _first_difference(a, b, f"{path}[{index}]")
            if inner is not None:
                return inner.lstrip(".")
        return None
    same = type(expected) is type(found) and expected == found
    return None if same else (path.lstrip(".") or "the document")
