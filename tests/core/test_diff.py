"""diff(desired, observed) -> Plan: one case per action and edge, as a user reads the plan."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings, strategies as st

from quotactl.core.plan.diff import diff, field_changes
from quotactl.core.plan.model import Action
from quotactl.core.resources.desired import STACK_TAG, RunnableTimeout, Strategy
from quotactl.core.resources.observed import Kind
from quotactl.errors import UnmanagedResourceError
from tests.core.plan_support import (
    OWNED,
    STACK,
    desired,
    env,
    live,
    observed,
    policy,
    queue,
    share,
)

if TYPE_CHECKING:
    from quotactl.core.resources.observed import ObservedResource, Spec

BASE: tuple[Spec, ...] = (env(), policy(), queue())


@dataclass(frozen=True)
class Case:
    name: str
    config: tuple[Spec, ...]
    live: tuple[ObservedResource | Spec, ...]
    expected: tuple[tuple[str, Action, tuple[str, ...]], ...]
    """(address, action, changed field paths) in plan order."""


CASES = [
    Case(
        "empty account: everything is created in dependency order",
        (*BASE, share()),
        (),
        (
            ("environment.gpu", Action.CREATE, ()),
            ("policy.training-quota", Action.CREATE, ()),
            ("queue.training", Action.CREATE, ()),
            ("share.training/nlp", Action.CREATE, ()),
        ),
    ),
    Case("live equals config: no changes", (*BASE, share()), (*BASE, share()), ()),
    Case(
        "tag-only change is an update of that tag",
        (*BASE, share(tags={**OWNED, "owner": "nlp-lead"})),
        (*BASE, share(tags={**OWNED, "owner": "someone"})),
        (("share.training/nlp", Action.UPDATE, ("tags[owner]",)),),
    ),
    Case(
        "capacity type added",
        (*BASE, share(capacity={"ml.g5.xlarge": 4, "ml.p5.48xlarge": 2})),
        (*BASE, share(capacity={"ml.g5.xlarge": 4})),
        (("share.training/nlp", Action.UPDATE, ("capacity[ml.p5.48xlarge]",)),),
    ),
    Case(
        "capacity type removed",
        (*BASE, share(capacity={"ml.g5.xlarge": 4})),
        (*BASE, share(capacity={"ml.g5.xlarge": 4, "ml.p5.48xlarge": 2})),
        (("share.training/nlp", Action.UPDATE, ("capacity[ml.p5.48xlarge]",)),),
    ),
    Case(
        "strategy change drops the borrow limit with it",
        (*BASE, share(strategy=Strategy.RESERVE)),
        (*BASE, share(strategy=Strategy.LEND_AND_BORROW, borrow_limit=100)),
        (("share.training/nlp", Action.UPDATE, ("sharing", "borrow_limit")),),
    ),
    Case(
        "borrow limit raised to unlimited",
        (*BASE, share(borrow_limit=-1)),
        (*BASE, share(borrow_limit=100)),
        (("share.training/nlp", Action.UPDATE, ("borrow_limit",)),),
    ),
    Case(
        "share moved to another queue is replaced at its new address",
        (
            *BASE,
            env("gpu2"),
            policy("inference"),
            queue("inference", "gpu2"),
            share(queue="inference"),
        ),
        (
            *BASE,
            env("gpu2"),
            policy("inference"),
            queue("inference", "gpu2"),
            share(queue="training"),
        ),
        (("share.inference/nlp", Action.REPLACE, ("queue",)),),
    ),
    Case(
        "disabled share is an update of enabled",
        (*BASE, share(enabled=False)),
        (*BASE, share()),
        (("share.training/nlp", Action.UPDATE, ("enabled",)),),
    ),
    Case(
        "resource of this stack no longer in config is deleted, children first",
        (env(),),
        (*BASE, share()),
        (
            ("share.training/nlp", Action.DELETE, ()),
            ("queue.training", Action.DELETE, ()),
            ("policy.training-quota", Action.DELETE, ()),
        ),
    ),
    Case(
        "resources of another stack or untagged are never touched",
        (*BASE,),
        (*BASE, share("cv", tags={STACK_TAG: "other"}), share("legacy", tags={})),
        (),
    ),
    Case(
        "queue settings: priority and runnable timeout",
        (
            env(),
            policy(),
            queue(priority=5, runnable_timeout=RunnableTimeout(3600, ("MISCONFIGURATION:X",))),
        ),
        (*BASE,),
        (
            (
                "queue.training",
                Action.UPDATE,
                ("priority", "runnable_timeout.seconds", "runnable_timeout.reasons"),
            ),
        ),
    ),
    Case(
        "a resource on its way out counts as absent",
        (*BASE, share()),
        (*BASE, live(share(), status="DELETING")),
        (("share.training/nlp", Action.CREATE, ()),),
    ),
    Case(
        "policy type cannot change: policy, its queue and the queue's shares are replaced",
        (*BASE, share()),
        (env(), live(policy(), policy_type="fairshare"), queue(), share()),
        (
            ("policy.training-quota", Action.REPLACE, ("type",)),
            ("queue.training", Action.REPLACE, ()),
            ("share.training/nlp", Action.REPLACE, ()),
        ),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_diff(case: Case) -> None:
    plan = diff(desired(*case.config), observed(*case.live))
    got = tuple((c.address, c.action, tuple(f.path for f in c.fields)) for c in plan.changes)
    assert got == case.expected


def test_moved_share_remembers_where_it_was() -> None:
    config = (*BASE, env("gpu2"), policy("inference"), queue("inference", "gpu2"))
    plan = diff(desired(*config, share(queue="inference")), observed(*config, share()))
    (change,) = plan.changes
    assert change.previous_address == "share.training/nlp"
    assert change.fields[0].before == "training"
    assert change.fields[0].after == "inference"
    assert change.fields[0].forces_replacement


def test_cascaded_replace_says_why() -> None:
    live_state = observed(env(), live(policy(), policy_type="fairshare"), queue())
    plan = diff(desired(*BASE), live_state)
    assert [c.reason for c in plan.changes] == [None, "policy.training-quota is replaced"]


@pytest.mark.parametrize(
    ("owner_tags", "hint_word"),
    [({}, "quotactl import"), ({STACK_TAG: "other"}, "another stack")],
    ids=["untagged", "other-stack"],
)
def test_config_naming_an_unmanaged_resource_fails(
    owner_tags: dict[str, str], hint_word: str
) -> None:
    live_state = observed(env(), policy(), queue(tags=owner_tags))
    with pytest.raises(UnmanagedResourceError) as info:
        diff(desired(*BASE), live_state)
    assert info.value.code == "unmanaged-resource"
    assert "queue.training" in info.value.message
    assert hint_word in (info.value.hint or "")


def test_fingerprint_ignores_status_and_other_stacks_but_not_settings() -> None:
    config = desired(*BASE, share())
    base = diff(config, observed(*BASE, share())).fingerprint
    settling = diff(config, observed(*BASE, live(share(), status="UPDATING"))).fingerprint
    foreign = diff(config, observed(*BASE, share(), share("x", tags={STACK_TAG: "b"}))).fingerprint
    changed = diff(config, observed(*BASE, share(capacity={"ml.g5.xlarge": 1}))).fingerprint
    assert base == settling == foreign
    assert changed != base
    assert base.startswith("sha256:")


def test_settling_resources_are_listed_for_apply_to_wait_on() -> None:
    plan = diff(
        desired(*BASE, share()), observed(env(), policy(), live(queue(), status="CREATING"))
    )
    assert plan.settling == ("queue.training",)
    assert [c.address for c in plan.changes] == ["share.training/nlp"]
    assert plan.stack == STACK


_JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(-3, 3, allow_nan=False, allow_infinity=False),
        st.sampled_from(["", "a", "1", "true"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("ab"), inner, max_size=2)
    ),
    max_leaves=8,
)


_FIELD = _JSON.filter(lambda v: not isinstance(v, dict))  # a mapping is compared per entry


@settings(max_examples=500, deadline=None)
@given(_FIELD, _FIELD)
def test_a_field_changes_exactly_when_its_json_differs(old: object, new: object) -> None:
    """1, 1.0 and True are different settings; [{"a": 1, "b": 2}] in any key order is one."""
    found = field_changes(Kind.QUEUE, {"priority": old}, {"priority": new})  # type: ignore[dict-item]
    differs = json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True)
    assert bool(found) == differs
