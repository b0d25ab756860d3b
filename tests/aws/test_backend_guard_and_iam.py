"""The account guard (STS via moto) and the IAM policy derived from the operations table."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any

import boto3
import botocore.session
import pytest
from moto import mock_aws

import quotactl.aws.backend
from quotactl.aws.backend import AwsBackend
from quotactl.aws.guard import check_account
from quotactl.aws.permissions import OPERATIONS, policy_document
from quotactl.errors import AccountMismatchError

if TYPE_CHECKING:
    from collections.abc import Iterator

MOTO_ACCOUNT = "123456789012"


@pytest.fixture
def sts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws():
        yield boto3.client("sts", region_name="us-east-1")


def test_guard_refuses_another_account(sts: Any) -> None:
    with pytest.raises(AccountMismatchError) as info:
        check_account("999999999999", sts)
    assert info.value.code == "account-mismatch"
    assert MOTO_ACCOUNT in info.value.message
    assert "999999999999" in info.value.message


def test_guard_allows_the_configured_account(sts: Any) -> None:
    assert check_account(MOTO_ACCOUNT, sts) == MOTO_ACCOUNT


def test_guard_is_off_without_account_id(sts: Any) -> None:
    assert check_account(None, sts) is None


def test_every_operation_in_the_table_exists_in_botocore() -> None:
    session = botocore.session.get_session()
    for op in OPERATIONS.values():
        model = session.get_service_model(op.service)
        assert op.name in model.operation_names, op.action


def test_backend_only_calls_operations_in_the_table() -> None:
    backend_source = inspect.getsource(quotactl.aws.backend)
    called = set(re.findall(r'"([A-Z][A-Za-z]+)"', backend_source))
    batch_ops = set(botocore.session.get_session().get_service_model("batch").operation_names)
    assert called & batch_ops <= set(OPERATIONS)
    client = boto3.client(
        "batch", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    with pytest.raises(AssertionError, match="OPERATIONS"):
        AwsBackend(client).api.call("SubmitJob")


def test_iam_policy_scopes_writes_to_batch_arns_and_reads_to_star() -> None:
    document = policy_document(region="us-east-1", account=MOTO_ACCOUNT)
    statements = {s["Sid"]: s for s in document["Statement"]}
    read = statements["ReadQuotaManagement"]
    assert read["Resource"] == "*"
    assert "batch:ListQuotaShares" in read["Action"]
    writes = [s for sid, s in statements.items() if sid.startswith("ManageQuotaManagement")]
    actions = {a for s in writes for a in s["Action"]}
    assert {"batch:CreateQuotaShare", "batch:DeleteJobQueue", "batch:TagResource"} <= actions
    for statement in writes:
        for resource in statement["Resource"]:
            assert resource.startswith(f"arn:aws:batch:us-east-1:{MOTO_ACCOUNT}:")
    slr = statements["CreateBatchSageMakerServiceLinkedRole"]
    assert slr["Condition"] == {
        "StringEquals": {"iam:AWSServiceName": "sagemaker-queuing.batch.amazonaws.com"}
    }


def test_read_only_policy_has_no_writes() -> None:
    document = policy_document(read_only=True)
    actions = [
        a
        for s in document["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    ]
    writes = {op.action for op in OPERATIONS.values() if op.writes}
    assert not writes & set(actions)
