"""A plan as a graph of steps, and what each step does, in AWS's order.

A change becomes one step (create, update, delete) or two (a replace: delete, then create).
Dependencies follow AWS: policies and environments before the queue that uses them, a queue
before its shares; deletes the other way round (shares, then queues, then what they used).
Each step is a generator of instructions (``Call`` an API, ``WaitFor`` a status) so that the
executor can run calls on a thread pool and batch every wait into one status poll.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from quotactl.core.plan.diff import field_changes
from quotactl.core.plan.model import Action, Change, Plan
from quotactl.core.resources.attributes import IMMUTABLE, attributes, top_field
from quotactl.core.resources.desired import STACK_TAG, PolicySpec, QueueSpec, ShareSpec
from quotactl.core.resources.observed import Kind, Ref, Spec
from quotactl.core.states import GOING, SETTLING
from quotactl.errors import AlreadyExistsError, BackendError, NotFoundError, TakeoverRefusedError

if TYPE_CHECKING:
    from quotactl.core.backend import Backend
    from quotactl.core.resources.observed import ObservedResource

Op = Literal["create", "update", "delete", "settle"]


@dataclass(frozen=True)
class Call:
    """Run ``fn`` on the thread pool; the step receives its result (or its exception)."""

    fn: Callable[[], object]
    label: str


@dataclass(frozen=True)
class WaitFor:
    """Suspend the step until ``ref`` is VALID (with ``enabled`` if given) or gone."""

    ref: Ref
    until: Literal["valid", "gone"]
    enabled: bool | None = None

    @property
    def label(self) -> str:
        if self.until == "gone":
            return "waiting until deleted"
        state = {True: " and ENABLED", False: " and DISABLED", None: ""}[self.enabled]
        return f"waiting for VALID{state}"


Instruction = Call | WaitFor
Program = Generator[Instruction, object, None]


@dataclass
class Step:
    key: str
    op: Op
    ref: Ref
    change: Change | None
    deps: set[str] = field(default_factory=set)

    @property
    def address(self) -> str:
        return self.change.address if self.change is not None else self.ref.address


def build_steps(plan: Plan) -> dict[str, Step]:
    """Every step of ``plan`` with its dependencies, keyed ``<address>#<op>``."""
    steps: dict[str, Step] = {}

    def add(op: Op, ref: Ref, change: Change | None) -> Step:
        step = Step(f"{ref.address}#{op}", op, ref, change)
        steps[step.key] = step
        return step

    for change in plan.changes:
        if change.action is Action.CREATE:
            add("create", change.ref, change)
        elif change.action is Action.UPDATE:
            add("update", change.ref, change)
        elif change.action is Action.DELETE:
            add("delete", change.ref, change)
        else:
            assert change.before is not None
            gone = add("delete", Ref.of(change.before), change)
            add("create", change.ref, change).deps.add(gone.key)
    for address in plan.settling:
        add("settle", Ref.parse(address), None)
    for step in steps.values():
        step.deps.update(_dependencies(step, steps))
        step.deps.discard(step.key)
    return steps


def _dependencies(step: Step, steps: dict[str, Step]) -> set[str]:
    deps = {s.key for s in steps.values() if s.op == "settle" and s.ref == step.ref}
    building = step.op in ("create", "update")
    after = step.change.after if step.change is not None else None
    before = step.change.before if step.change is not None else None
    if building and isinstance(after, QueueSpec):
        needs = {Ref(Kind.ENVIRONMENT, after.environment), Ref(Kind.POLICY, after.policy)}
        deps |= {s.key for s in steps.values() if s.ref in needs and s.op != "delete"}
        # A queue taking an environment must wait for the queue that gives it up.
        deps |= {
            s.key
            for s in steps.values()
            if s.ref.kind is Kind.QUEUE and s.ref != step.ref and _releases(s, after.environment)
        }
    if building and isinstance(after, ShareSpec):
        queue = Ref(Kind.QUEUE, after.queue)
        deps |= {s.key for s in steps.values() if s.ref == queue and s.op != "delete"}
        if step.op == "create":  # make room first: at most 20 shares per queue
            deps |= {
                s.key
                for s in steps.values()
                if s.op == "delete" and s.ref.kind is Kind.SHARE and s.ref.queue == after.queue
            }
    if step.op == "delete" and isinstance(before, QueueSpec):
        deps |= {
            s.key
            for s in steps.values()
            if s.op == "delete" and s.ref.kind is Kind.SHARE and s.ref.queue == before.name
        }
    if step.op == "delete" and step.ref.kind in (Kind.ENVIRONMENT, Kind.POLICY):
        deps |= {s.key for s in steps.values() if _releases(s, step.ref.name, step.ref.kind)}
    return deps


def _releases(step: Step, name: str, kind: Kind = Kind.ENVIRONMENT) -> bool:
    """Does this queue step stop using environment (or policy) ``name``?"""
    change = step.change
    if change is None or not isinstance(change.before, QueueSpec):
        return False
    used = change.before.environment if kind is Kind.ENVIRONMENT else change.before.policy
    if used != name:
        return False
    if step.op == "delete":
        return True
    after = change.after
    if step.op == "update" and isinstance(after, QueueSpec):
        now = after.environment if kind is Kind.ENVIRONMENT else after.policy
        return now != name
    return False


def program(step: Step, backend: Backend, stack: str) -> Program:
    """What one step does, as instructions for the executor."""
    if step.op == "settle":
        yield WaitFor(step.ref, "valid")
        return
    change = step.change
    assert change is not None
    if step.op == "delete":
        assert change.before is not None
        assert change.arn is not None
        yield from _delete(step.ref, change.before, change.arn, backend)
    elif step.op == "update":
        assert change.before is not None
        assert change.after is not None
        assert change.arn is not None
        yield from _update(change.before, change.after, change.arn, change.changed_fields, backend)
    else:
        assert change.after is not None
        yield from _create(change.after, backend, stack)


def _waits(kind: Kind) -> bool:
    return kind is not Kind.POLICY  # scheduling policies have no lifecycle status


def _create(spec: Spec, backend: Backend, stack: str) -> Program:
    ref = Ref.of(spec)
    try:
        yield Call(lambda: backend.create(spec), "creating")
    except AlreadyExistsError:
        # An interrupted earlier apply (or a retried call that did succeed): adopt what is ours.
        found = yield Call(lambda: backend.describe(ref), "already exists: checking owner")
        existing: ObservedResource | None = found  # type: ignore[assignment]
        if existing is not None and existing.status in GOING:
            yield WaitFor(ref, "gone")
            existing = None
        if existing is None:
            yield Call(lambda: backend.create(spec), "creating")
        else:
            yield from _adopt(existing, spec, backend, stack)
            return
    if _waits(ref.kind):
        yield WaitFor(ref, "valid", _enabled(spec))


def _adopt(existing: ObservedResource, spec: Spec, backend: Backend, stack: str) -> Program:
    if existing.stack != stack:
        owner = f"stack {existing.stack!r}" if existing.stack else f"no {STACK_TAG} tag"
        raise TakeoverRefusedError(
            f"{spec.address} already exists with {owner}; quotactl will not take it over",
            hint="run `quotactl import` to adopt an untagged resource",
        )
    before = attributes(existing.spec, policy_type=existing.policy_type)
    fields = field_changes(existing.kind, before, attributes(spec))
    fixed = {top_field(f.path) for f in fields if top_field(f.path) in IMMUTABLE[existing.kind]}
    if fixed:
        raise BackendError(
            f"{spec.address} already exists with a different {', '.join(sorted(fixed))}",
            hint="delete it (or remove it from config and apply with --allow-delete) first",
        )
    if existing.status in SETTLING and _waits(existing.kind):
        yield WaitFor(existing.ref, "valid")
    if fields:
        changed = frozenset(top_field(f.path) for f in fields)
        yield from _update(existing.spec, spec, existing.arn, changed, backend)
    elif _waits(existing.kind):
        yield WaitFor(existing.ref, "valid")


def _update(
    before: Spec, after: Spec, arn: str, fields: frozenset[str], backend: Backend
) -> Program:
    yield Call(lambda: backend.update(before, after, arn, fields), "updating")
    if fields - {"tags"} and _waits(Ref.of(after).kind):
        yield WaitFor(Ref.of(after), "valid", _enabled(after))


def _delete(ref: Ref, before: Spec, arn: str, backend: Backend) -> Program:
    if _waits(ref.kind) and _enabled(before):
        yield Call(lambda: backend.set_enabled(ref, arn, False), "disabling")
        yield WaitFor(ref, "valid", False)
    try:
        yield Call(lambda: backend.delete(ref, arn), "deleting")
    except BackendError as exc:
        if not isinstance(exc, NotFoundError):
            raise
        return  # already gone (an earlier, interrupted apply got this far)
    if _waits(ref.kind):
        yield WaitFor(ref, "gone")


def _enabled(spec: Spec) -> bool | None:
    return None if isinstance(spec, PolicySpec) else spec.enabled
