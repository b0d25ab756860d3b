"""Reading live state waits on AWS only where one answer is needed for the next request.

A no-change plan of a large stack is mostly waiting on round trips, so ``observe`` sends the
reads that do not depend on each other together. These tests make a sequential read
impossible to pass: the embedded emulator holds requests at a barrier (or until another
request has arrived), which a sequential reader never reaches and so times out on.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from quotactl.aws.backend import AwsBackend
from quotactl.aws.session import Target, client
from quotactl.config import load_config
from quotactl.core.apply.executor import apply
from quotactl.core.plan.diff import make_plan
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from pathlib import Path

WAIT_S = 10.0  # how long a request waits for its partner before the test fails


CONFIG = """
platform: {name: demo, region: us-east-1}
environments:
  - {name: gpu-a, capacity: {ml.g5.xlarge: 2}}
  - {name: gpu-b, capacity: {ml.g5.xlarge: 2}}
queues: [{name: a, environment: gpu-a}, {name: b, environment: gpu-b}]
teams:
  - name: team
    shares:
      - {queue: a, capacity: {ml.g5.xlarge: 2}, sharing: reserve}
      - {queue: b, capacity: {ml.g5.xlarge: 2}, sharing: reserve}
"""


def _stack(tmp_path: Path) -> Any:
    """An emulated account with two queues (a and b) of one share each; its Batch client."""
    (tmp_path / "quotactl.yaml").write_text(CONFIG)
    desired = load_config([tmp_path / "quotactl.yaml"]).desired
    batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
    backend = AwsBackend(batch)
    assert apply(make_plan(desired, backend), backend).ok
    backend.close()
    return batch


def test_environments_policies_and_queues_are_read_at_once(tmp_path: Path) -> None:
    batch = _stack(tmp_path)
    together = threading.Barrier(3, timeout=WAIT_S)
    first = {"DescribeServiceEnvironments", "ListSchedulingPolicies", "DescribeJobQueues"}
    met: set[str] = set()

    def hold(model: Any, **_: Any) -> None:
        if model.name in first and model.name not in met:
            met.add(model.name)
            together.wait()  # broken (an error) unless all three are in flight at once

    batch.meta.events.register("before-call.batch", hold)
    observed = AwsBackend(batch).observe("demo", ["a", "b"])

    assert met == first
    addresses = {r.address for r in observed.resources}
    assert {"environment.gpu-a", "queue.a", "share.a/team", "share.b/team"} <= addresses
    assert any(a.startswith("policy.") for a in addresses)


def answer_as_the_model(batch: Any) -> None:
    """ListQuotaShares' items without their tags, as botocore's model has them (an endpoint
    that lists no tags): the reader falls back to ListTagsForResource for each share."""

    def strip(response_dict: dict[str, Any], **_: Any) -> None:
        body = json.loads(response_dict["body"])
        for item in body.get("quotaShares", []):
            item.pop("tags", None)
        response_dict["body"] = json.dumps(body).encode()

    batch.meta.events.register_first("before-parse.batch.ListQuotaShares", strip)


def test_a_queues_share_tags_are_read_before_every_queue_is_listed(tmp_path: Path) -> None:
    batch = _stack(tmp_path)
    answer_as_the_model(batch)
    tags_of_a = threading.Event()
    lists: list[str] = []

    def hold(model: Any, params: dict[str, Any], **_: Any) -> None:
        if model.name == "ListTagsForResource" and "/a/" in params["resourceArn"]:
            tags_of_a.set()
        if model.name == "ListQuotaShares":
            lists.append(params["jobQueue"])
            if params["jobQueue"] == "b":
                # b's list is answered only once a's tags were asked for
                assert tags_of_a.wait(WAIT_S), "tags of a's shares waited for b's list"

    batch.meta.events.register("before-parameter-build.batch", hold)
    observed = AwsBackend(batch).observe("demo", ["a", "b"])

    assert sorted(lists) == ["a", "b"]
    shares = {r.address: r.stack for r in observed.resources if r.address.startswith("share.")}
    assert shares == {"share.a/team": "demo", "share.b/team": "demo"}
