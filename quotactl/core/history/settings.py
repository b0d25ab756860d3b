"""Settings records: the one JSON Lines format in which ``apply --log``, ``govern --log`` and
``history`` write what a share's settings became and when, and ``usage --history`` reads them.

A record is ``{"at", "policy", "kind", "address", "before", "after", "reason", "result"}``:
``at`` the account's time (ISO 8601 UTC), ``policy`` what made the change (a governor policy
such as ``schedule:NAME`` or ``budget``, ``apply`` for the configuration, ``history`` for an
observation), ``after`` the fields set (configuration names; the share's whole policy fields
for ``apply`` and ``history``, the changed ones for ``govern``; null for a deleted share).
``usage`` folds a share's records in time order onto the configuration's settings: the
latest record at or before an instant gives the settings in force then.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.run import log_record as log_record  # the one record writer
from quotactl.core.resources.desired import UNLIMITED, ShareSpec, Strategy

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from quotactl.core.apply.hooks import ApplyResult
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.observed import Spec

SHARE_FIELDS = ("capacity", "sharing", "borrow_limit", "in_share_preemption", "enabled")
"""The share fields a settings record carries (configuration names, as in ``attributes``)."""
IN_FORCE = ("applied", "blocked", "observed")
"""Results whose ``after`` is what the share holds (``failed`` changed nothing)."""


def share_settings(spec: ShareSpec) -> dict[str, Any]:
    """A share's policy fields as a record carries them."""
    from quotactl.core.resources.attributes import attributes

    attrs = attributes(spec)
    return {name: attrs[name] for name in SHARE_FIELDS}


@dataclass(frozen=True)
class SettingsRecord:
    """What one record says: from ``at`` (epoch seconds) share ``queue/share`` holds
    ``fields`` over what it held before; None: the share was deleted (no limit, lends
    nothing)."""

    at: float
    queue: str
    share: str
    fields: Mapping[str, Any] | None


def settings_records(lines: Iterable[Mapping[str, Any]]) -> list[SettingsRecord]:
    """The records of ``lines`` that set a share's settings (job and other resources' lines,
    failed changes and fields other than the share's are left out), in file order."""
    found = []
    for line in lines:
        address = line.get("address")
        if not isinstance(address, str) or not address.startswith("share."):
            continue
        if line.get("result") not in IN_FORCE or not isinstance(line.get("at"), str):
            continue
        queue, _, share = address.removeprefix("share.").partition("/")
        after = line.get("after")
        kind = str(line.get("kind") or "")
        if after is None and not kind.startswith("delete"):
            continue
        fields = None if after is None else {k: after[k] for k in SHARE_FIELDS if k in after}
        try:
            at = datetime.fromisoformat(line["at"].replace("Z", "+00:00"))
        except ValueError:
            continue  # not a time: not a record this reader can place
        if at.tzinfo is None:  # the logs write UTC; a time without a zone is read as UTC too
            at = at.replace(tzinfo=UTC)
        found.append(SettingsRecord(at.timestamp(), queue, share, fields))
    return found


def is_settings_line(line: Mapping[str, Any]) -> bool:
    """Whether a JSON Lines object is a settings record (not a ledger row)."""
    return "address" in line and "at" in line and "job_id" not in line


def with_fields(spec: ShareSpec, fields: Mapping[str, Any] | None) -> ShareSpec:
    """``spec`` with a record's fields set (no schedule: the record is what was in force)."""
    if fields is None:
        return replace(spec, capacity={}, strategy=Strategy.RESERVE, schedule=())
    capacity = fields.get("capacity")
    sharing = fields.get("sharing")
    strategy = Strategy(str(sharing).upper()) if sharing else spec.strategy
    borrow = fields.get("borrow_limit", spec.borrow_limit)
    return replace(
        spec,
        capacity={str(k): int(v) for k, v in capacity.items()}
        if isinstance(capacity, dict)
        else spec.capacity,
        strategy=strategy,
        borrow_limit=UNLIMITED if borrow in (None, "unlimited") else int(borrow),
        in_share_preemption=bool(fields.get("in_share_preemption", spec.in_share_preemption)),
        enabled=bool(fields.get("enabled", spec.enabled)),
        schedule=(),
    )


def recorded_steps(
    configured: Sequence[tuple[float, ShareSpec]], records: Sequence[SettingsRecord]
) -> list[tuple[float, ShareSpec]]:
    """A share's settings in force from the first step of ``configured`` (the configuration's,
    with its windows, at ``start`` and each boundary) given its ``records`` (in time order,
    ties in file order): the configuration's until the first record, then each record folded
    onto the settings it found (the configuration's at that moment, for the first)."""
    if not records:
        return list(configured)
    start = configured[0][0]
    first = records[0].at
    steps = [(t, spec) for t, spec in configured if t < first]
    current = _configured_at(configured, first)
    for record in records:
        current = with_fields(current, record.fields)
        at = max(record.at, start)
        if steps and steps[-1][0] == at:
            steps[-1] = (at, current)
        else:
            steps.append((at, current))
    return steps


def _configured_at(configured: Sequence[tuple[float, ShareSpec]], at: float) -> ShareSpec:
    found = configured[0][1]
    for t, spec in configured:
        if t <= at:
            found = spec
    return found


def latest_settings(
    records: Sequence[SettingsRecord],
) -> dict[tuple[str, str], dict[str, Any] | None]:
    """Per (queue, share), the fields its records add up to at the last of them (None: it was
    deleted), as ``history`` compares what it reads with what was recorded."""
    found: dict[tuple[str, str], dict[str, Any] | None] = {}
    for record in sorted(records, key=lambda r: r.at):
        key = (record.queue, record.share)
        before = found.get(key)
        found[key] = None if record.fields is None else {**(before or {}), **dict(record.fields)}
    return found


def applied_records(plan: Plan, result: ApplyResult, at: datetime) -> list[dict[str, Any]]:
    """``apply --log``'s records: one per change the apply made (``policy`` "apply"), with the
    settings before and after (a share's policy fields, another resource's settings without
    its tags; null for what did not exist), all stamped ``at``."""
    from quotactl.core.apply.hooks import Status

    done = {o.address for o in result.outcomes if o.status is Status.DONE and o.action}
    return [
        log_record(
            at,
            "apply",
            f"{change.action.value}-{change.ref.kind.value}",
            change.address,
            _settings_of(change.before),
            _settings_of(change.after),
            change.reason or "the configuration",
            "applied",
        )
        for change in plan.changes
        if change.address in done
    ]


def _settings_of(spec: Spec | None) -> dict[str, Any] | None:
    from quotactl.core.resources.attributes import attributes

    if spec is None:
        return None
    if isinstance(spec, ShareSpec):
        return share_settings(spec)
    return {k: v for k, v in attributes(spec).items() if k != "tags"}
