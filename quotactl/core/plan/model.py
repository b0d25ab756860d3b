"""The plan: a value describing every change needed to make live match config.

``diff`` produces it, renderers show it, ``apply`` executes it (Terraform's ``internal/plans``).
Fields documented "for display only" must never influence what apply does.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from quotactl.core.resources.attributes import Attributes, JSONValue, attributes, top_field
from quotactl.core.resources.desired import QueueSpec, ShareSpec
from quotactl.core.resources.observed import Kind, Ref, Spec
from quotactl.core.rules import RuleReport

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.govern import PolicyState


class Action(StrEnum):
    """What happens to one resource; the value is the JSON spelling, ``symbol`` the text one."""

    CREATE = "create"
    UPDATE = "update"
    REPLACE = "replace"
    DELETE = "delete"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]


_SYMBOLS = {Action.CREATE: "+", Action.UPDATE: "~", Action.REPLACE: "-/+", Action.DELETE: "-"}
ACTION_ORDER = (Action.CREATE, Action.UPDATE, Action.REPLACE, Action.DELETE)


@dataclass(frozen=True)
class FieldChange:
    """One field's ``before -> after`` (``None`` means absent)."""

    path: str
    before: JSONValue
    after: JSONValue
    forces_replacement: bool = False


@dataclass(frozen=True)
class AffectedJob:
    """A live job a change disturbs (from ListServiceJobs at plan time)."""

    job_id: str
    name: str
    share: str | None
    status: str
    instances: Mapping[str, int] = field(default_factory=dict)


class Effect(StrEnum):
    """How a change disturbs running work."""

    TERMINATED = "terminated"
    """Deleting (or replacing) a share or queue: AWS eventually terminates all its jobs."""
    PREEMPTIBLE = "preemptible"
    """Usage above a lowered limit counts as borrowed: these jobs are the first victims."""
    DISABLED = "disabled"
    """A disabled share or queue refuses new jobs; the listed ones may still finish."""
    SQUEEZED = "squeezed"
    """An environment's capacity lowered below what its queue's jobs hold: AWS stops nothing,
    the listed jobs run on, and new jobs of that type wait until usage falls below it."""


@dataclass(frozen=True)
class Impact:
    """The runtime consequence of one change (for display only: apply ignores it)."""

    effect: Effect
    message: str
    jobs: tuple[AffectedJob, ...] = ()


@dataclass(frozen=True)
class Change:
    """One resource's action. ``before`` is live (None for create), ``after`` desired."""

    kind: Kind
    action: Action
    before: Spec | None
    after: Spec | None
    arn: str | None = None
    """The live resource's ARN (update, replace, delete)."""
    before_attributes: Attributes | None = None
    """What live holds, in ``attributes`` form (kept because some facts have no spec field)."""
    fields: tuple[FieldChange, ...] = ()
    impact: tuple[Impact, ...] = ()
    reason: str | None = None
    """Why a replace happens when no field of its own forces it (display only)."""

    @property
    def spec(self) -> Spec:
        spec = self.after if self.after is not None else self.before
        assert spec is not None, "a change has a before or an after"
        return spec

    @property
    def address(self) -> str:
        return self.spec.address

    @property
    def ref(self) -> Ref:
        return Ref.of(self.spec)

    @property
    def previous_address(self) -> str | None:
        """Where a replaced resource lives now, when that differs (a share moved queue)."""
        if self.before is not None and self.before.address != self.address:
            return self.before.address
        return None

    @property
    def after_attributes(self) -> Attributes | None:
        return attributes(self.after) if self.after is not None else None

    @property
    def changed_fields(self) -> frozenset[str]:
        """Top-level attribute names that differ (``capacity``, ``tags``, ...)."""
        return frozenset(top_field(f.path) for f in self.fields)


@dataclass(frozen=True)
class Plan:
    """Every change for one stack, in display order, with the fingerprint of what was read."""

    stack: str
    region: str
    account_id: str | None
    changes: tuple[Change, ...]
    fingerprint: str
    scope: tuple[str, ...] = ()
    """Addresses the configuration declares: with the stack tag, what the fingerprint covers."""
    settling: tuple[str, ...] = ()
    """Unchanged resources still CREATING/UPDATING that some change must wait for."""
    rules: RuleReport = field(default_factory=RuleReport)
    """The rules judged on this plan, the overrides given, and their results (apply judges
    them again: it never trusts these results)."""
    policies: PolicyState | None = None
    """The schedule windows and budgets in force at the instant planned for (None: the
    config declares none); a saved plan is stale once they change."""

    @property
    def empty(self) -> bool:
        return not self.changes

    def counts(self) -> dict[Action, int]:
        counted = Counter(c.action for c in self.changes)
        return {a: counted.get(a, 0) for a in ACTION_ORDER}

    @property
    def destructive(self) -> tuple[Change, ...]:
        """Deletes and replaces: what ``apply --allow-delete`` guards."""
        return tuple(c for c in self.changes if c.action in (Action.DELETE, Action.REPLACE))

    def queues_at_risk(self) -> frozenset[str]:
        """Queues whose live jobs a change may disturb (the only ones whose jobs are read)."""
        queues: set[str] = set()
        for change in self.changes:
            if change.action is Action.CREATE or change.before is None:
                continue
            before = change.before
            if isinstance(before, QueueSpec):
                queues.add(before.name)
            elif isinstance(before, ShareSpec):
                queues.add(before.queue)
        return frozenset(queues)
