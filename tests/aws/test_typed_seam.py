"""The typed boto3 seam: every operation quotactl calls is one its service's client has, and
the type stubs (boto3-stubs, a test dependency) are never needed at run time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import boto3
import botocore.session

from quotactl.aws.calls import _method
from quotactl.aws.permissions import OPERATIONS

ROOT = Path(__file__).resolve().parents[2]

# Imports of the stubs fail, as on a machine with only quotactl's own dependencies.
_WITHOUT_STUBS = """
import importlib.abc, runpy, sys

class NoStubs(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("mypy_boto3", "boto3_stubs", "botocore_stubs")):
            raise ImportError(f"{name} is not installed")
        return None

sys.meta_path.insert(0, NoStubs())
sys.argv = ["quotactl", *sys.argv[1:]]
runpy.run_module("quotactl", run_name="__main__")
"""


def test_every_operation_is_a_method_of_its_services_client() -> None:
    models = botocore.session.get_session()
    session = boto3.Session(
        aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1"
    )
    services = sorted({op.service for op in OPERATIONS.values()})
    assert services == ["batch", "iam", "logs", "s3", "sagemaker", "sts"]
    clients = {s: session.client(s) for s in services}  # type: ignore[call-overload]
    try:
        for op in OPERATIONS.values():
            assert op.name in models.get_service_model(op.service).operation_names, op.name
            assert callable(getattr(clients[op.service], _method(op.name), None)), op.name
    finally:
        for client in clients.values():
            client.close()


def test_plan_runs_without_the_type_stubs_installed(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    state, demo = str(tmp_path / "s.db"), str(ROOT / "configs" / "demo")
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_STUBS, "--state", state, "plan", demo],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Plan: 7 to create, 0 to update, 0 to replace, 0 to delete." in done.stdout
