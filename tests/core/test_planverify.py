"""planverify: every plan ``diff`` makes passes verification unchanged; limits hold on hostile
input; signatures cover every byte of meaning."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from quotactl.config.value_checks import VALUE_CHECKS
from quotactl.core.plan.diff import diff
from quotactl.core.plan.document import to_document
from quotactl.core.plan.envelope import MAX_DEPTH, check_signature, nesting_depth, parse, sign
from quotactl.core.plan.verify import load, verify
from quotactl.core.resources.desired import ShareSpec, Strategy
from quotactl.errors import PlanInvalidError, PlanSignatureError
from tests.core.plan_support import (
    ACCOUNT,
    desired,
    env,
    job,
    live as live_resource,
    observed,
    policy,
    queue,
    share,
)

QUEUES = ("training", "inference")
BASE = (
    env("gpu"),
    env("gpu2"),
    policy("training"),
    policy("inference"),
    queue("training", "gpu"),
    queue("inference", "gpu2"),
)


def share_specs() -> st.SearchStrategy[list[ShareSpec]]:
    one = st.builds(
        lambda name, q, count, strategy, limit, enabled, preempt: share(
            name,
            q,
            {"ml.g5.xlarge": count},
            strategy,
            borrow_limit=limit if strategy is Strategy.LEND_AND_BORROW else -1,
            enabled=enabled,
            in_share_preemption=preempt,
        ),
        st.sampled_from(["nlp", "cv", "speech", "ranking"]),
        st.sampled_from(QUEUES),
        st.integers(1, 8),
        st.sampled_from(list(Strategy)),
        st.sampled_from([-1, 0, 50, 200]),
        st.booleans(),
        st.booleans(),
    )
    return st.lists(one, max_size=6, unique_by=lambda s: (s.queue, s.name))


@settings(deadline=None, max_examples=60)
@given(before=share_specs(), after=share_specs(), running=st.integers(0, 6))
def test_every_plan_diff_makes_is_accepted_as_written(
    before: list[ShareSpec], after: list[ShareSpec], running: int
) -> None:
    jobs = [job(f"j{i}", "nlp", {"ml.g5.xlarge": 2}, started_at=i) for i in range(running)]
    live = observed(*BASE, *before, jobs=jobs)
    plan = replace(diff(desired(*BASE, *after), live), account_id=ACCOUNT)
    document = json.loads(json.dumps(to_document(plan)))
    assert to_document(verify(document, VALUE_CHECKS)) == document


def test_a_replaced_queue_cascades_and_still_verifies() -> None:
    """A policy of another type is replaced, its queue and the queue's share with it."""
    resources = observed(
        env("gpu"),
        live_resource(policy("training"), policy_type="fairshare"),
        queue("training", "gpu"),
        share("nlp"),
    )
    plan = replace(
        diff(
            desired(env("gpu"), policy("training"), queue("training", "gpu"), share("nlp")),
            resources,
        ),
        account_id=ACCOUNT,
    )
    assert any(c.reason for c in plan.changes), "the share is replaced because its queue is"
    document = json.loads(json.dumps(to_document(plan)))
    assert to_document(verify(document, VALUE_CHECKS)) == document


@pytest.mark.parametrize(
    ("text", "depth"),
    [("{}", 1), ('{"a": [[1], {"b": "[[[["}]}', 3), ('"[[[\\"[["', 0), ("[" * 50 + "]" * 50, 50)],
)
def test_nesting_is_counted_outside_strings(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


@pytest.mark.parametrize(
    "data",
    [
        b"[" * 200_000 + b"]" * 200_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        b"[" * (MAX_DEPTH + 1),
        b"\xff\xfe not utf-8",
        b"{ not json",
    ],
    ids=["200k-deep-list", "100k-deep-object", "just-too-deep", "not-utf8", "not-json"],
)
def test_hostile_bytes_are_a_clean_plan_invalid(data: bytes) -> None:
    with pytest.raises(PlanInvalidError):
        parse(data)


def test_a_signature_covers_the_document_and_nothing_else() -> None:
    plan = replace(diff(desired(*BASE, share()), observed()), account_id=ACCOUNT)
    document = to_document(plan)
    signed = sign(document, "k")
    check_signature(signed, "k")
    reordered = dict(reversed(list(signed.items())))  # key order is not meaning
    check_signature(reordered, "k")
    changed = json.loads(json.dumps(signed))
    changed["changes"][0]["after"]["enabled"] = False
    for bad, key in ((changed, "k"), (signed, "other"), (document, "k")):
        with pytest.raises(PlanSignatureError):
            check_signature(bad, key)
    loaded = load(json.dumps(signed).encode(), VALUE_CHECKS, key="k")
    assert to_document(loaded) == document
