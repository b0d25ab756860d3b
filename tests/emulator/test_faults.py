"""Fault injection: deterministic under a seed, decided before the handler (never a half
write), and boto3's standard retry mode rides through throttling."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from quotactl.emulator.faults import FaultSpec, parse_faults
from quotactl.errors import UsageError
from tests.conftest import TEST_TIMING
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from pathlib import Path


def outcomes(path: Path, spec: str, count: int) -> list[int]:
    with Emulator(path, faults=spec, sleep=lambda _: None, timing=TEST_TIMING) as emulator:
        return [
            emulator.handle("POST", "/v1/listschedulingpolicies", "", {}, b"{}").status
            for _ in range(count)
        ]


def test_the_same_seed_gives_the_same_faults(tmp_path: Path) -> None:
    first = outcomes(tmp_path / "a.db", "throttle=0.3,error=0.1,seed=7", 60)
    again = outcomes(tmp_path / "b.db", "throttle=0.3,error=0.1,seed=7", 60)
    other = outcomes(tmp_path / "c.db", "throttle=0.3,error=0.1,seed=8", 60)
    assert first == again
    assert first != other
    assert {200, 429, 500} == set(first)


def test_a_fault_never_half_applies_a_write(tmp_path: Path) -> None:
    with Emulator(tmp_path / "s.db", faults="error=0.5,seed=1", timing=TEST_TIMING) as emulator:
        statuses = [
            emulator.handle(
                "POST", "/v1/createschedulingpolicy", "", {}, f'{{"name": "p{i}"}}'.encode()
            ).status
            for i in range(40)
        ]
    with Emulator(tmp_path / "s.db", timing=TEST_TIMING) as clean:
        stored = clean.call("ListSchedulingPolicies", {})["schedulingPolicies"]
    created = {p["arn"].rsplit("/", 1)[1] for p in stored}
    assert created == {f"p{i}" for i, status in enumerate(statuses) if status == 200}
    assert 0 < len(created) < 40


def test_standard_retries_ride_through_throttling_for_reads(tmp_path: Path) -> None:
    target = Target("local", tmp_path / "s.db", faults="throttle=0.3,seed=3", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, faults=target.faults, timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    try:
        for _ in range(12):
            assert batch.list_scheduling_policies()["schedulingPolicies"] == []
        assert emulator.faults.injected["TooManyRequestsException"] >= 3
    finally:
        batch.close()
        emulator.close()


@pytest.mark.slow
def test_serve_injects_faults_over_http(tmp_path: Path) -> None:
    server = Served(tmp_path / "s.db", "--faults", "throttle=1")
    http = http_client(server.url)
    try:
        with pytest.raises(http.exceptions.ClientError) as caught:
            http.list_scheduling_policies()
        assert caught.value.response["Error"]["Code"] == "TooManyRequestsException"
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429
    finally:
        http.close()
        server.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("throttle=2", "probability between 0 and 1"),
        ("colour=red", "invalid fault 'colour=red'"),
        ("latency_ms=soon", "needs a number"),
        ("throttle=0.6,error=0.6", "add up to more than 1"),
    ],
)
def test_a_bad_fault_spec_is_a_usage_error(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_faults(text)


def test_fault_spec_parses_every_key() -> None:
    assert parse_faults("latency_ms=20,throttle=0.2,error=0.05,seed=7,submit_tps=5") == FaultSpec(
        latency_ms=20, throttle=0.2, error=0.05, seed=7, submit_tps=5
    )


def test_submit_tps_throttles_the_sixth_submit_in_a_second(tmp_path: Path) -> None:
    now = [1000.0]
    with Emulator(
        tmp_path / "s.db", faults="submit_tps=5", wall=lambda: now[0], timing=TEST_TIMING
    ) as emulator:
        codes = [
            emulator.handle("POST", "/v1/submitservicejob", "", {}, b"{}").status for _ in range(6)
        ]
        now[0] += 1.0
        later = emulator.handle("POST", "/v1/submitservicejob", "", {}, b"{}").status
    assert codes == [400] * 5 + [429]  # 400: the empty request itself is invalid
    assert later == 400


def test_refuse_answers_one_operation_with_a_client_error_every_time(tmp_path: Path) -> None:
    spec = "refuse=ListSchedulingPolicies"
    assert outcomes(tmp_path / "a.db", spec, 3) == [400, 400, 400]
    with Emulator(tmp_path / "b.db", faults=spec, timing=TEST_TIMING) as emulator:
        assert emulator.handle("POST", "/v1/describejobqueues", "", {}, b"{}").status == 200
    with pytest.raises(UsageError, match="names an operation"):
        parse_faults("refuse=1")


@pytest.mark.parametrize(("variant", "lag"), [("default", 3), ("strict", 0), ("strict", 1)])
def test_list_lag_leaves_a_creation_out_of_that_many_listings(
    tmp_path: Path, variant: str, lag: int
) -> None:
    state = tmp_path / "s.db"
    emulator = Emulator(state, faults=f"list_lag={lag}", timing=TEST_TIMING, variant=variant)
    target = Target("local", state)
    batch = client(target, session=make_session(target, emulator=emulator))
    policy = batch.create_scheduling_policy(
        name="p", quotaSharePolicy={"idleResourceAssignmentStrategy": "FIFO"}
    )["arn"]
    seen = [
        bool(batch.describe_scheduling_policies(arns=[policy])["schedulingPolicies"])
        for _ in range(lag + 2)
    ]
    assert seen == [False] * lag + [True, True]
    emulator.close()
