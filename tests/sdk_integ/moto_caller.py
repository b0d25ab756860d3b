"""A pytest plugin for run.sh: moto in process for S3, STS, IAM and SageMaker, with the caller
an assumed role; requests to other endpoints (AWS_ENDPOINT_URL_BATCH) go out unchanged."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import boto3
from moto import mock_aws

if TYPE_CHECKING:
    import pytest

REGION = os.environ.get("AWS_DEFAULT_REGION", "us-west-2")
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "sagemaker.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ],
}
_MOCK = mock_aws()


def pytest_configure(config: pytest.Config) -> None:
    _MOCK.start()
    iam = boto3.client("iam", region_name=REGION)
    role = iam.create_role(RoleName="SageMakerRole", AssumeRolePolicyDocument=json.dumps(TRUST))
    sts = boto3.client("sts", region_name=REGION)
    keys = sts.assume_role(RoleArn=role["Role"]["Arn"], RoleSessionName="integ")["Credentials"]
    os.environ["AWS_ACCESS_KEY_ID"] = keys["AccessKeyId"]
    os.environ["AWS_SECRET_ACCESS_KEY"] = keys["SecretAccessKey"]
    os.environ["AWS_SESSION_TOKEN"] = keys["SessionToken"]
    boto3.setup_default_session()
    print("caller:", boto3.client("sts", region_name=REGION).get_caller_identity()["Arn"])


def pytest_unconfigure(config: pytest.Config) -> None:
    _MOCK.stop()
