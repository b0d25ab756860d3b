"""Policies, environments, job queues and quota shares through a real boto3 client: happy
paths, status lifecycles a client must wait for, pagination, tagging."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.emulator.emulator_support import (
    POLICY,
    TYPE,
    create_share,
    environment_status,
    make_queue,
    queue_status,
    wait_for,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.emulator.conftest import Account


def test_a_new_environment_is_creating_until_a_later_request_sees_it_valid(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    created = client.create_service_environment(
        serviceEnvironmentName=names("env"),
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": TYPE, "maxCapacity": 4}],
        tags={"team": "ml"},
    )
    assert created["serviceEnvironmentArn"] == (
        f"arn:aws:batch:us-east-1:123456789012:service-environment/{names('env')}"
    )
    first = environment_status(client, names("env"))
    assert first["status"] == "CREATING"
    second = environment_status(client, names("env"))
    assert second == {
        "serviceEnvironmentName": names("env"),
        "serviceEnvironmentArn": created["serviceEnvironmentArn"],
        "serviceEnvironmentType": "SAGEMAKER_TRAINING",
        "state": "ENABLED",
        "status": "VALID",
        "capacityLimits": [{"maxCapacity": 4, "capacityUnit": TYPE}],
        "tags": {"team": "ml"},
    }


def test_a_client_that_does_not_wait_is_refused_like_on_aws(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    policy = client.create_scheduling_policy(name=names("p"), quotaSharePolicy=POLICY)
    client.create_service_environment(
        serviceEnvironmentName=names("env"),
        serviceEnvironmentType="SAGEMAKER_TRAINING",
        capacityLimits=[{"capacityUnit": TYPE, "maxCapacity": 1}],
    )
    with pytest.raises(client.exceptions.ClientException, match="is CREATING; it must be VALID"):
        client.create_job_queue(
            jobQueueName=names("q"),
            priority=1,
            schedulingPolicyArn=policy["arn"],
            serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": names("env")}],
        )


def test_queue_and_shares_lifecycle_from_create_to_delete(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    arns = make_queue(client, queue, shares={"qs1": {"strategy": "LEND_AND_BORROW", "borrow": 200}})
    described = client.describe_quota_share(quotaShareArn=arns["qs1"])
    assert described["quotaShareArn"] == f"{arns['queue']}/quota-share/qs1"
    assert described["resourceSharingConfiguration"] == {
        "strategy": "LEND_AND_BORROW",
        "borrowLimit": 200,
    }
    assert described["preemptionConfiguration"] == {"inSharePreemption": "DISABLED"}
    assert queue_status(client, queue)["statusReason"] == "JobQueue Healthy"

    client.update_quota_share(
        quotaShareArn=arns["qs1"],
        capacityLimits=[{"capacityUnit": "ml.m5.large", "maxCapacity": 2}],
        resourceSharingConfiguration={"strategy": "RESERVE"},
        state="DISABLED",
    )
    assert client.describe_quota_share(quotaShareArn=arns["qs1"])["status"] == "UPDATING"
    updated = wait_for(lambda: client.describe_quota_share(quotaShareArn=arns["qs1"]), "VALID")
    assert updated["capacityLimits"] == [{"maxCapacity": 2, "capacityUnit": "ml.m5.large"}]
    assert updated["resourceSharingConfiguration"] == {"strategy": "RESERVE"}
    assert updated["state"] == "DISABLED"

    client.delete_quota_share(quotaShareArn=arns["qs1"])
    assert client.describe_quota_share(quotaShareArn=arns["qs1"])["status"] == "DELETING"
    with pytest.raises(client.exceptions.ClientException, match="does not exist"):
        client.describe_quota_share(quotaShareArn=arns["qs1"])

    client.update_job_queue(jobQueue=queue, state="DISABLED")
    wait_for(lambda: queue_status(client, queue), "VALID")
    client.delete_job_queue(jobQueue=arns["queue"])
    wait_for(lambda: queue_status(client, queue), "GONE")
    client.delete_scheduling_policy(arn=arns["policy"])
    client.update_service_environment(serviceEnvironment=f"{queue}-env", state="DISABLED")
    wait_for(lambda: environment_status(client, f"{queue}-env"), "VALID")
    client.delete_service_environment(serviceEnvironment=f"{queue}-env")
    wait_for(lambda: environment_status(client, f"{queue}-env"), "GONE")
    assert client.describe_scheduling_policies(arns=[arns["policy"]])["schedulingPolicies"] == []


def test_deleting_a_queue_takes_its_shares_with_it(
    inproc: Account, names: Callable[[str], str]
) -> None:
    client = inproc.client
    arns = make_queue(client, "q", shares={"a": {}})
    client.update_job_queue(jobQueue="q", state="DISABLED")
    wait_for(lambda: queue_status(client, "q"), "VALID")
    client.delete_job_queue(jobQueue="q")
    wait_for(lambda: queue_status(client, "q"), "GONE")
    with pytest.raises(client.exceptions.ClientException, match="does not exist"):
        client.describe_quota_share(quotaShareArn=arns["a"])


def test_scheduling_policies_describe_update_and_list(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    arn = client.create_scheduling_policy(
        name=names("p"), quotaSharePolicy=POLICY, tags={"k": "v"}
    )["arn"]
    client.update_scheduling_policy(arn=arn, quotaSharePolicy=POLICY)
    [policy] = client.describe_scheduling_policies(arns=[arn, arn + "-missing"])[
        "schedulingPolicies"
    ]
    assert policy == {
        "name": names("p"),
        "arn": arn,
        "quotaSharePolicy": POLICY,
        "tags": {"k": "v"},
    }
    listed = [
        p["arn"]
        for page in client.get_paginator("list_scheduling_policies").paginate()
        for p in page["schedulingPolicies"]
    ]
    assert arn in listed


def test_list_quota_shares_pages_with_next_token(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    queue = names("q")
    make_queue(client, queue)
    for index in range(7):
        create_share(client, queue, f"s{index}")
    first = client.list_quota_shares(jobQueue=queue, maxResults=3)
    assert [s["quotaShareName"] for s in first["quotaShares"]] == ["s0", "s1", "s2"]
    pages = client.get_paginator("list_quota_shares").paginate(
        jobQueue=queue, PaginationConfig={"PageSize": 3}
    )
    sizes = [len(page["quotaShares"]) for page in pages]
    assert sizes == [3, 3, 1]
    everything = client.list_quota_shares(jobQueue=queue)["quotaShares"]
    assert len(everything) == 7
    assert "nextToken" not in client.list_quota_shares(jobQueue=queue)


def test_describe_job_queues_and_environments_page_through_the_account(inproc: Account) -> None:
    client = inproc.client
    for index in range(5):
        client.create_service_environment(
            serviceEnvironmentName=f"env{index}",
            serviceEnvironmentType="SAGEMAKER_TRAINING",
            capacityLimits=[{"capacityUnit": "NUM_INSTANCES", "maxCapacity": 2}],
        )
    pages = client.get_paginator("describe_service_environments").paginate(
        PaginationConfig={"PageSize": 2}
    )
    assert [len(p["serviceEnvironments"]) for p in pages] == [2, 2, 1]


def test_tags_on_a_share_can_be_added_listed_and_removed(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    arns = make_queue(client, names("q"), shares={"a": {}})
    client.tag_resource(resourceArn=arns["a"], tags={"quotactl:stack": "demo", "owner": "nlp"})
    client.untag_resource(resourceArn=arns["a"], tagKeys=["owner"])
    assert client.list_tags_for_resource(resourceArn=arns["a"])["tags"] == {
        "quotactl:stack": "demo"
    }
    assert client.describe_quota_share(quotaShareArn=arns["a"])["tags"] == {
        "quotactl:stack": "demo"
    }
    queue_tags = client.list_tags_for_resource(resourceArn=arns["queue"])["tags"]
    assert queue_tags == {}


def test_listing_tags_of_an_arn_that_names_nothing_of_this_account_is_refused(
    batch: Account, names: Callable[[str], str]
) -> None:
    client = batch.client
    arns = make_queue(client, names("q"), shares={"a": {}})
    assert client.list_tags_for_resource(resourceArn=arns["a"])["tags"] == {}
    missing = arns["a"].rsplit("/", 1)[0] + "/nobody"
    elsewhere = arns["a"].replace("123456789012", "210987654321")
    for arn in (missing, elsewhere, "arn:aws:batch:us-east-1:123456789012:unknown/x"):
        with pytest.raises(client.exceptions.ClientException, match=r"does not exist|not an AWS"):
            client.list_tags_for_resource(resourceArn=arn)
