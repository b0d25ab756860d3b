"""The plan as a JSON document: the ``-o json`` view and the ``plan --out`` file are the same.

Format version "1" (additions keep the version; removals or changes bump it)::

    {
      "format_version": "1",
      "stack": "demo", "region": "us-east-1", "account_id": "123456789012",  # where computed
      "fingerprint": "sha256:<hex of the live state read>",
      "summary": {"create": 1, "update": 0, "replace": 0, "delete": 0},
      "changes": [
        {
          "address": "share.training/nlp",
          "previous_address": null,            # set when a replace moves a share to a queue
          "kind": "share", "name": "nlp", "action": "update",
          "arn": "arn:aws:batch:...",          # live ARN; null for create
          "before": {...attributes} | null,    # live settings; null for create
          "after": {...attributes} | null,     # desired settings; null for delete
          "fields": [{"path": "capacity[ml.p5.48xlarge]", "before": 8, "after": 4,
                      "forces_replacement": false}],
          "reason": null,                      # why a replace happens when no field forces it
          "impact": [{"effect": "preemptible", "message": "...",
                      "jobs": [{"id", "name", "share", "status", "instances": {...}}]}]
        }
      ],
      "scope": ["environment.gpu-pool", ...],  # addresses config declares
      "settling": [],                          # unchanged resources still CREATING/UPDATING
      "disruption": {"jobs": 1, "terminated": 0, "preemptible": 1, "disabled": 0,
                     "job_ids": ["..."]},      # SCHEDULED/STARTING/RUNNING jobs the impact
                                               # names: what apply's disruption guard counts
      "rules": [{"name", "level", "check", "result": "pass" | "fail" | "overridden",
                 "message"}],                  # each rule's result when the plan was made
      "overrides": ["NAME"],                   # --override NAME given to plan
      "rule_definitions": [{"name", "level", "check", ...parameters}]  # what apply judges
    }                                          # again (unless given --rules PATH)

Attributes use configuration names (``capacity``, ``sharing``, ``borrow_limit``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.govern import PolicyState
from quotactl.core.plan.disruption import counts, disrupted_jobs
from quotactl.core.plan.model import Action, AffectedJob, Change, Effect, FieldChange, Impact, Plan
from quotactl.core.resources.attributes import JSONValue, spec_from_attributes
from quotactl.core.resources.observed import Kind, Ref, Spec
from quotactl.core.rules.codec import report_from_json, report_to_json
from quotactl.errors import PlanInvalidError

if TYPE_CHECKING:
    from collections.abc import Mapping

FORMAT_VERSION = "1"


def to_document(plan: Plan) -> dict[str, JSONValue]:
    """The plan as plain JSON values (stable key order)."""
    return {
        "format_version": FORMAT_VERSION,
        "stack": plan.stack,
        "region": plan.region,
        "account_id": plan.account_id,
        "fingerprint": plan.fingerprint,
        "summary": {a.value: n for a, n in plan.counts().items()},
        "changes": [_change(c) for c in plan.changes],
        "scope": list(plan.scope),
        "settling": list(plan.settling),
        "disruption": _disruption(plan),
        **report_to_json(plan.rules),
        **({"policies": plan.policies.to_dict()} if plan.policies is not None else {}),
    }


def _disruption(plan: Plan) -> JSONValue:
    disrupted = disrupted_jobs(plan)
    return {**counts(disrupted), "job_ids": [d.job.job_id for d in disrupted]}


def _change(change: Change) -> JSONValue:
    return {
        "address": change.address,
        "previous_address": change.previous_address,
        "kind": change.kind.value,
        "name": change.spec.name,
        "action": change.action.value,
        "arn": change.arn,
        "before": change.before_attributes,
        "after": change.after_attributes,
        "fields": [
            {
                "path": f.path,
                "before": f.before,
                "after": f.after,
                "forces_replacement": f.forces_replacement,
            }
            for f in change.fields
        ],
        "reason": change.reason,
        "impact": [
            {
                "effect": i.effect.value,
                "message": i.message,
                "jobs": [
                    {
                        "id": j.job_id,
                        "name": j.name,
                        "share": j.share,
                        "status": j.status,
                        "instances": dict(j.instances),
                    }
                    for j in i.jobs
                ],
            }
            for i in change.impact
        ],
    }


def from_document(document: JSONValue) -> Plan:
    """Read a saved plan back; PlanError (``plan-invalid``) if it is not one we wrote."""
    try:
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        version = document.get("format_version")
        if version != FORMAT_VERSION:
            raise ValueError(f"format_version {version!r} is not {FORMAT_VERSION!r}")
        changes = document.get("changes")
        if not isinstance(changes, list):
            raise ValueError("changes is not a list")
        account = document.get("account_id")
        return Plan(
            stack=_str(document, "stack"),
            region=_str(document, "region"),
            account_id=account if isinstance(account, str) else None,
            changes=tuple(_read_change(c) for c in changes),
            fingerprint=_str(document, "fingerprint"),
            scope=tuple(_strings(document.get("scope"))),
            settling=tuple(_strings(document.get("settling"))),
            rules=report_from_json(document),
            policies=_policies(document.get("policies")),
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise PlanInvalidError(
            f"not a quotactl plan file: {exc}",
            hint="write one with `quotactl plan --out FILE`",
        ) from exc


def _policies(raw: JSONValue) -> PolicyState | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("policies is not an object")
    return PolicyState.from_dict(raw)


def _read_change(raw: JSONValue) -> Change:
    if not isinstance(raw, dict):
        raise ValueError("a change is not an object")
    kind = Kind(_str(raw, "kind"))
    action = Action(_str(raw, "action"))
    name = _str(raw, "name")
    before_attrs = raw.get("before")
    after_attrs = raw.get("after")
    before: Spec | None = None
    if isinstance(before_attrs, dict):
        before_name = name
        previous = raw.get("previous_address")
        if isinstance(previous, str):
            before_name = Ref.parse(previous).name
        before = spec_from_attributes(kind, before_name, before_attrs)
    after = spec_from_attributes(kind, name, after_attrs) if isinstance(after_attrs, dict) else None
    if before is None and after is None:
        raise ValueError(f"change {name!r} has neither before nor after")
    arn = raw.get("arn")
    reason = raw.get("reason")
    return Change(
        kind=kind,
        action=action,
        before=before,
        after=after,
        arn=arn if isinstance(arn, str) else None,
        before_attributes=before_attrs if isinstance(before_attrs, dict) else None,
        fields=tuple(_read_field(f) for f in _list(raw.get("fields"))),
        impact=tuple(_read_impact(i) for i in _list(raw.get("impact"))),
        reason=reason if isinstance(reason, str) else None,
    )


def _read_field(raw: JSONValue) -> FieldChange:
    if not isinstance(raw, dict):
        raise ValueError("a field change is not an object")
    return FieldChange(
        path=_str(raw, "path"),
        before=raw.get("before"),
        after=raw.get("after"),
        forces_replacement=raw.get("forces_replacement") is True,
    )


def _read_impact(raw: JSONValue) -> Impact:
    if not isinstance(raw, dict):
        raise ValueError("an impact is not an object")
    jobs = []
    for job in _list(raw.get("jobs")):
        if not isinstance(job, dict):
            raise ValueError("a job is not an object")
        share = job.get("share")
        instances = job.get("instances") or {}
        if not isinstance(instances, dict):
            raise ValueError("job instances is not an object")
        jobs.append(
            AffectedJob(
                job_id=_str(job, "id"),
                name=_str(job, "name"),
                share=share if isinstance(share, str) else None,
                status=_str(job, "status"),
                instances={str(k): int(str(v)) for k, v in instances.items()},
            )
        )
    return Impact(Effect(_str(raw, "effect")), _str(raw, "message"), tuple(jobs))


def _str(obj: Mapping[str, JSONValue], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} is not a string")
    return value


def _list(value: JSONValue) -> list[JSONValue]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("expected a list")
    return value


def _strings(value: JSONValue) -> list[str]:
    return [str(v) for v in _list(value)]
