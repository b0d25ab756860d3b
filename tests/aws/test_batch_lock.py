"""The stack lock on the aws backend (botocore Stubber: AWS's own request and error shapes).

Two processes are two clients: the first CreateSchedulingPolicy wins, the second is answered
"Object already exists" (AWS keeps scheduling-policy names unique, which is what makes the
create an atomic test-and-set) and reports the holder it reads from the lock's tags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from quotactl.aws.backend import AwsBackend
from quotactl.aws.lock import lock_name
from quotactl.core.apply.lock import HOLDER_TAG, LOCK_TAG, acquire
from quotactl.errors import StateLockedError

if TYPE_CHECKING:
    from collections.abc import Iterator

ARN = "arn:aws:batch:us-east-1:123456789012"
LOCK_ARN = f"{ARN}:scheduling-policy/quotactl-lock-demo"


def batch_client() -> Any:
    return boto3.client(
        "batch",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def lock_item(tags: dict[str, str]) -> dict[str, Any]:
    return {"name": "quotactl-lock-demo", "arn": LOCK_ARN, "tags": tags}


@pytest.fixture
def two() -> Iterator[tuple[tuple[Any, Stubber], tuple[Any, Stubber]]]:
    first, second = batch_client(), batch_client()
    with Stubber(first) as one, Stubber(second) as other:
        yield (first, one), (second, other)
        one.assert_no_pending_responses()
        other.assert_no_pending_responses()


def test_the_second_apply_is_refused_by_the_atomic_create_and_names_the_holder(
    two: tuple[tuple[Any, Stubber], tuple[Any, Stubber]],
) -> None:
    (first, one), (second, other) = two
    one.add_response(
        "create_scheduling_policy",
        {"name": "quotactl-lock-demo", "arn": LOCK_ARN},
        {"name": "quotactl-lock-demo", "tags": ANY},
    )
    held = acquire(AwsBackend(first).lock_store(), "demo", holder="alice@ci pid 1", command="apply")
    other.add_client_error(
        "create_scheduling_policy",
        service_error_code="ClientException",
        service_message="Object already exists",
        http_status_code=400,
        expected_params={"name": "quotactl-lock-demo", "tags": ANY},
    )
    other.add_response("list_scheduling_policies", {"schedulingPolicies": [{"arn": LOCK_ARN}]})
    for _ in range(2):  # is it ours (a resent create)? then: whose is it?
        other.add_response(
            "describe_scheduling_policies",
            {"schedulingPolicies": [lock_item(held.info.tags())]},
            {"arns": [LOCK_ARN]},
        )
    with pytest.raises(StateLockedError) as info:
        acquire(AwsBackend(second).lock_store(), "demo", holder="bob", command="apply")
    assert "stack demo is locked by alice@ci pid 1 (apply" in info.value.message
    # The holder releases: it checks the lock is still its own, then deletes it.
    one.add_response(
        "describe_scheduling_policies",
        {"schedulingPolicies": [lock_item(held.info.tags())]},
        {"arns": [LOCK_ARN]},
    )
    one.add_response("delete_scheduling_policy", {}, {"arn": LOCK_ARN})
    held.release()


def test_the_lock_policy_is_never_a_resource_of_any_plan(
    two: tuple[tuple[Any, Stubber], tuple[Any, Stubber]],
) -> None:
    (client, stub), _ = two
    quota = {"name": "training-quota", "arn": f"{ARN}:scheduling-policy/training-quota"}
    stub.add_response("describe_service_environments", {"serviceEnvironments": []})
    stub.add_response(
        "list_scheduling_policies",
        {"schedulingPolicies": [{"arn": LOCK_ARN}, {"arn": quota["arn"]}]},
    )
    stub.add_response(
        "describe_scheduling_policies",
        {
            "schedulingPolicies": [
                lock_item({LOCK_TAG: "demo", HOLDER_TAG: "x"}),
                {**quota, "quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"}},
            ]
        },
    )  # fmt: skip
    stub.add_response("describe_job_queues", {"jobQueues": []})
    observed = AwsBackend(client, concurrency=1).observe("demo", [])  # stubbed: in order
    assert [r.address for r in observed.resources] == ["policy.training-quota"]


@pytest.mark.parametrize("stack", ["demo", "x" * 128])
def test_the_lock_name_is_a_valid_policy_name_for_every_stack_name(stack: str) -> None:
    name = lock_name(stack)
    assert len(name) <= 128
    assert name.startswith("quotactl-lock-")
    assert lock_name(stack) == name
    assert lock_name(stack + "y") != name


def test_a_lock_create_whose_answer_was_lost_is_ours_on_the_retry(tmp_path: Any) -> None:
    """botocore resends a CreateSchedulingPolicy whose answer was lost; the resend finds the
    lock already there, with this acquisition's own id: it is ours, not another holder's."""
    import time

    from quotactl.aws.session import Target, client, make_session
    from quotactl.core.apply.lock import ID_TAG, LockInfo
    from quotactl.emulator import Emulator
    from tests.conftest import TEST_TIMING

    target = Target("local", tmp_path / "s.db", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, faults="lose_every=1", timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    try:
        store: Any = AwsBackend(batch).lock_store()
        now = time.time()
        mine = LockInfo("demo", "id-1", "me", "apply", now, now + 60).tags()
        assert store.create("demo", mine) is True
        assert store.read("demo")[ID_TAG] == "id-1"
        theirs = LockInfo("demo", "id-2", "them", "apply", now, now + 60).tags()
        assert store.create("demo", theirs) is False  # someone else's lock stays theirs
    finally:
        batch.close()
        emulator.close()
