"""``MemoryBackend`` (the executor tests' double) answers as the emulated account does.

Each scenario is a sequence of backend calls played on both: the in-memory double and
``AwsBackend`` over a real boto3 client attached to the embedded emulator. After every call
both accounts are polled until nothing is settling; the outcome of each call (ok, already
exists, refused) and the resources left at the end must be the same. A rule the double
enforces that the emulator does not (or the reverse) fails here, so executor tests written
against the double cannot pass on behaviour the real account would not show.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest

from quotactl.aws.backend import AwsBackend
from quotactl.aws.session import Target, client
from quotactl.core.resources.observed import Kind, Ref
from quotactl.core.states import GOING
from quotactl.errors import AlreadyExistsError, BackendError
from tests.conftest import TEST_TIMING
from tests.core.plan_support import MemoryBackend, arn_of, env, policy, queue, share

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from quotactl.core.backend import Backend
    from quotactl.core.resources.desired import ShareSpec
    from quotactl.core.resources.observed import Spec

Step = tuple[str, "Callable[[Backend], object]"]

ENV, POLICY, QUEUE, SHARE = env(), policy(), queue(), share()
SHARE_REF = Ref.of(SHARE)
QUEUE_REF = Ref.of(QUEUE)


def create(spec: Spec) -> Step:
    return (f"create {Ref.of(spec).address}", lambda b: b.create(spec))


def disable(spec: Spec) -> Step:
    ref = Ref.of(spec)
    return (f"disable {ref.address}", lambda b: b.set_enabled(ref, arn_of(ref), False))


def delete(spec: Spec) -> Step:
    ref = Ref.of(spec)
    return (f"delete {ref.address}", lambda b: b.delete(ref, arn_of(ref)))


def update(before: ShareSpec, after: ShareSpec) -> Step:
    ref = Ref.of(after)
    fields = frozenset({"capacity"})
    return (f"update {ref.address}", lambda b: b.update(before, after, arn_of(ref), fields))


STACK_STEPS = [create(ENV), create(POLICY), create(QUEUE), create(SHARE)]
SMALLER = replace(SHARE, capacity={"ml.g5.xlarge": 2})

SCENARIOS: dict[str, list[Step]] = {
    "a stack created in order": STACK_STEPS,
    "a share before its queue is refused": [create(ENV), create(SHARE)],
    "a name taken twice": [create(ENV), create(ENV)],
    "an enabled queue cannot be deleted": [*STACK_STEPS, delete(QUEUE)],
    "a disabled queue is deleted with its shares": [*STACK_STEPS, disable(QUEUE), delete(QUEUE)],
    "a policy in use cannot be deleted": [*STACK_STEPS, delete(POLICY)],
    "an environment attached to a queue cannot be deleted": [
        *STACK_STEPS,
        disable(ENV),
        delete(ENV),
    ],
    "a share updated, disabled, then deleted": [
        *STACK_STEPS,
        update(SHARE, SMALLER),
        disable(SHARE),
        delete(SHARE),
    ],
    "an enabled share cannot be deleted": [*STACK_STEPS, delete(SHARE)],
    "deleting what does not exist": [create(ENV), delete(SHARE)],
    "the twenty-first share is refused": [
        create(ENV),
        create(POLICY),
        create(QUEUE),
        *(create(share(name=f"s{i:02}")) for i in range(21)),
    ],
}


def outcome(backend: Backend, step: Step) -> str:
    try:
        step[1](backend)
    except AlreadyExistsError:
        return "already-exists"
    except BackendError:
        return "refused"
    return "ok"


def settle(backend: Backend, refs: list[Ref]) -> None:
    for _ in range(20):
        statuses = backend.statuses(refs)
        if all(s is None or s.status == "VALID" for s in statuses.values()):
            return
    raise AssertionError(f"still settling after 20 polls: {statuses}")


def final_state(backend: Backend) -> dict[str, tuple[str, bool, object]]:
    observed = backend.observe("demo", ["training"])
    return {
        r.address: (r.status, getattr(r.spec, "enabled", True), getattr(r.spec, "capacity", None))
        for r in observed.resources
        if r.status not in GOING
    }


def play(backend: Backend, steps: list[Step]) -> tuple[list[str], dict[str, object]]:
    numbered = [Ref(Kind.SHARE, f"s{i:02}", "training") for i in range(21)]
    all_refs = [Ref.of(ENV), Ref.of(POLICY), QUEUE_REF, SHARE_REF, *numbered]
    outcomes = []
    for step in steps:
        outcomes.append(f"{step[0]}: {outcome(backend, step)}")
        settle(backend, all_refs)
    return outcomes, dict(final_state(backend))


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_memory_double_answers_as_the_emulator_does(name: str, tmp_path: Path) -> None:
    steps = SCENARIOS[name]
    emulated = AwsBackend(client(Target("local", tmp_path / "emulator.db", timing=TEST_TIMING)))
    try:
        expected = play(emulated, steps)
    finally:
        emulated.close()
    assert play(MemoryBackend(delay=2), steps) == expected


def test_the_scenarios_cover_both_success_and_refusal() -> None:
    """The table is worth something only if the emulator both accepts and refuses in it."""
    seen = {step[0].split()[0] for steps in SCENARIOS.values() for step in steps}
    assert seen == {"create", "disable", "delete", "update"}
