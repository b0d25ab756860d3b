"""Model-driven fuzzing: requests generated from botocore's input shapes for every operation
the emulator implements, valid ones through real boto3 and broken ones as raw bodies, in
process and over `local serve`. Never a 5xx; every error a 400 ClientException with a
message; every success valid against botocore's OUTPUT shape; the AWS CLI parses what
describe/list calls return.

Example counts are modest by default; ``QUOTACTL_FUZZ_EXAMPLES=N`` raises them offline and
``QUOTACTL_FUZZ_LOG=FILE`` appends the number of requests sent per test to FILE.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from quotactl.emulator.handlers import HANDLERS
from tests.conftest import TEST_TIMING
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import POLICY, TYPE, Served, make_queue, payload
from tests.emulator.model_strategies import broken, mutations, places, replaced, valid
from tests.emulator.wire_support import BATCH, Answer, output_problems

if TYPE_CHECKING:
    from collections.abc import Iterator

    from botocore.model import OperationModel

OPERATIONS = sorted(HANDLERS)
EXAMPLES = int(os.environ.get("QUOTACTL_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
)
FUZZ_HTTP = settings(FUZZ, max_examples=max(3, EXAMPLES // 3))
SENT: Counter[str] = Counter()


class Fuzzed:
    """One emulated account under fuzzing: a boto3 client and a raw sender."""

    def __init__(self, transport: str, batch: Any, emulator: Emulator | None, url: str) -> None:
        self.transport, self.client, self.emulator, self.url = transport, batch, emulator, url
        self.pools = seed(batch)
        self.last: dict[str, Any] = {}
        batch.meta.events.register("before-parse.batch", self._capture)

    def _capture(self, response_dict: dict[str, Any], **_: Any) -> None:
        self.last = response_dict

    def pools_for(self, operation: str) -> dict[str, list[Any]]:
        """The pools, with ``<Operation>.<member>`` entries overriding ``<member>``."""
        prefix = f"{operation}."
        own = {k[len(prefix) :]: v for k, v in self.pools.items() if k.startswith(prefix)}
        return {**self.pools, **own}

    def raw(self, method: str, target: str, data: bytes) -> Answer:
        SENT[f"{self.transport} raw"] += 1
        path, _, query = target.partition("?")
        if self.emulator is not None:
            out = self.emulator.handle(method, path, query, {}, data)
            return Answer(out.status, out.headers.get("x-amzn-ErrorType"), _json(out.body))
        import http.client
        from urllib.parse import urlsplit

        url = urlsplit(self.url)
        connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=30)
        try:
            connection.request(method, target, body=data)
            reply = connection.getresponse()
            return Answer(reply.status, reply.getheader("x-amzn-ErrorType"), _json(reply.read()))
        finally:
            connection.close()


def _json(data: bytes) -> Any:
    return json.loads(data) if data else {}


def seed(batch: Any) -> dict[str, list[Any]]:
    """Resources the generated requests can hit, and per-member pools of realistic values."""
    arns = make_queue(batch, "fq", shares={"a": {}, "b": {"limit": 2}, "c": {}})
    batch.update_quota_share(quotaShareArn=arns["c"], state="DISABLED")
    fair = batch.create_scheduling_policy(
        name="fair", fairsharePolicy={"shareDistribution": [{"shareIdentifier": "T"}]}
    )["arn"]
    for name, state in (("e1", "ENABLED"), ("e-off", "DISABLED"), ("e-q", "ENABLED")):
        batch.create_service_environment(
            serviceEnvironmentName=name,
            serviceEnvironmentType="SAGEMAKER_TRAINING",
            state=state,
            capacityLimits=[{"capacityUnit": "NUM_INSTANCES", "maxCapacity": 4}],
        )
    batch.describe_service_environments()  # CREATING -> VALID
    batch.create_job_queue(
        jobQueueName="q-off",
        state="DISABLED",
        priority=1,
        serviceEnvironmentOrder=[{"order": 1, "serviceEnvironment": "e-q"}],
    )
    jobs = [
        batch.submit_service_job(
            jobName=f"seed{i}",
            jobQueue="fq",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(),
            quotaShareName="a",
            retryStrategy={"attempts": 2, "evaluateOnExit": [{"action": "RETRY"}]},
            timeoutConfig={"attemptDurationSeconds": 600},
            preemptionConfiguration={"preemptionRetriesBeforeTermination": 1},
        )
        for i in range(4)
    ]
    batch.describe_job_queues()  # q-off: CREATING -> VALID
    queues = ["fq", arns["queue"]]
    resources = [arns["queue"], arns["policy"], arns["a"], fair, jobs[0]["jobArn"]]
    order = [{"order": 1, "serviceEnvironment": "e1"}]
    return {
        "name": ["fq-quota", "fair", "p1", "AFTER_CREATED_AT", "JOB_NAME"],
        "values": [["\u00b2"], ["1700000000000"], ["seed*"]],
        "arn": [arns["policy"], fair],
        "arns": [[arns["policy"], fair]],
        "schedulingPolicyArn": [arns["policy"], fair],
        "quotaSharePolicy": [POLICY],
        "serviceEnvironmentName": ["fq-env", "e2"],
        "serviceEnvironment": ["fq-env", "e1", "e-off"],
        "serviceEnvironments": [["fq-env"]],
        "serviceEnvironmentOrder": [order],
        "jobQueueName": ["fq", "q1", "q2"],
        "jobQueue": [*queues, "q-off"],
        "jobQueues": [queues],
        "quotaShareName": ["a", "b", "d"],
        "quotaShareArn": [arns["a"], arns["b"], arns["c"]],
        "capacityLimits": [[{"capacityUnit": TYPE, "maxCapacity": 2}]],
        "capacityUnit": [TYPE, "ml.m5.large"],
        "maxCapacity": [1, 2, 4],
        "resourceSharingConfiguration": [{"strategy": "RESERVE"}],
        "preemptionConfiguration": [
            {"inSharePreemption": "DISABLED"},
            {"preemptionRetriesBeforeTermination": 2},
        ],
        "retryStrategy": [{"attempts": 2}],
        "timeoutConfig": [{"attemptDurationSeconds": 600}],
        "priority": [1, 10],
        "schedulingPriority": [1, 10],
        "order": [1],
        "jobName": ["j1", "j2"],
        "jobId": [j["jobId"] for j in jobs[1:]] + [j["jobArn"] for j in jobs[1:]],
        "TerminateServiceJob.jobId": [jobs[0]["jobId"], jobs[0]["jobArn"]],
        "jobs": [[jobs[0]["jobId"]]],
        "serviceRequestPayload": [payload(), payload(count=2), "{}", "not json"],
        "resourceArn": resources,
        "reason": ["done", "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"],
        "maxTimeSeconds": [600, 3600],
        "attempts": [1, 3],
        "tags": [{"team": "ml"}],
        "tags.key": ["team", "quotactl:duration"],
        "tags.value": ["ml", "90m"],
        "maxResults": [1, 2, 50],
    }


@pytest.fixture(scope="module")
def inproc_account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    target = Target(
        backend="local", state_path=tmp_path_factory.mktemp("fuzz") / "state.db", timing=TEST_TIMING
    )
    emulator = Emulator(target.state_path, timing=TEST_TIMING)
    batch = client(
        target, session=make_session(target, emulator=emulator), retries={"total_max_attempts": 1}
    )
    yield Fuzzed("inproc", batch, emulator, "")
    batch.close()
    emulator.close()


@pytest.fixture(scope="module")
def http_account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    server = Served(tmp_path_factory.mktemp("fuzz-http") / "state.db")
    batch = http_client(server.url)
    yield Fuzzed("http", batch, None, server.url)
    batch.close()
    server.close()


def snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def assert_answer(operation: str, status: int, body: Any, code: str | None) -> None:
    """The emulator's contract for any request: 200 with a valid output, or a 4xx error."""
    assert status < 500, (operation, status, body)
    if status == 200:
        assert output_problems(operation, body) == [], (operation, body)
    else:
        assert status == 400, (operation, status, body)
        assert code == "ClientException", (operation, code)
        assert isinstance(body, dict), (operation, body)
        assert body.get("message"), (operation, body)


def check_valid(account: Fuzzed, operation: str, data: st.DataObject) -> None:
    """A request the model accepts, through boto3: a 200 with a valid output, or a 400."""
    model = BATCH.operation_model(operation)
    assert model.input_shape is not None
    params = data.draw(valid(model.input_shape, account.pools_for(operation)), label="params")
    call = getattr(account.client, snake(operation))
    with contextlib.suppress(account.client.exceptions.ClientException):
        call(**params)
    response = account.last
    status = response["status_code"]
    SENT[f"{account.transport} valid {operation} {status}"] += 1
    code = response["headers"].get("x-amzn-ErrorType")
    assert_answer(operation, status, _json(response["body"]), code)


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ
@given(data=st.data())
def test_valid_requests_in_process(
    inproc_account: Fuzzed, operation: str, data: st.DataObject
) -> None:
    check_valid(inproc_account, operation, data)


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ_HTTP
@given(data=st.data())
def test_valid_requests_over_http(
    http_account: Fuzzed, operation: str, data: st.DataObject
) -> None:
    check_valid(http_account, operation, data)


def target(model: OperationModel, params: dict[str, Any]) -> str:
    """The request URI with its label and query members filled from ``params``."""
    uri: str = model.http["requestUri"]
    query: dict[str, Any] = {}
    shape = model.input_shape
    assert shape is not None
    for name, member in shape.members.items():
        location = member.serialization.get("location")
        if location == "uri" and name in params:
            uri = uri.replace("{" + name + "}", quote(str(params[name]), safe=""))
        elif location == "querystring" and isinstance(params.get(name), list):
            query[member.serialization.get("name", name)] = params[name]
    return uri + ("?" + urlencode(query, doseq=True) if query else "")


def check_broken(account: Fuzzed, operation: str, data: st.DataObject) -> None:
    """A valid request broken in one place at the wire level: a 400 ClientException."""
    model = BATCH.operation_model(operation)
    shape = model.input_shape
    assert shape is not None
    params = data.draw(valid(shape, account.pools_for(operation)), label="params")
    path, where = data.draw(st.sampled_from(places(params, shape)), label="place")
    way = data.draw(st.sampled_from(mutations(where)), label="way")
    pick = data.draw(st.integers(0, 5), label="pick")
    current: Any = params
    for step in path:
        current = current[step]
    body = replaced(params, path, broken(current, where, way, pick))
    location = {m for m, s in shape.members.items() if s.serialization.get("location")}
    sent = {k: v for k, v in body.items() if k not in location} if isinstance(body, dict) else body
    answer = account.raw(model.http["method"], target(model, params), json.dumps(sent).encode())
    assert answer.status == 400, (way, path, answer)
    assert answer.code == "ClientException"
    assert answer.message


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ
@given(data=st.data())
def test_broken_requests_in_process(
    inproc_account: Fuzzed, operation: str, data: st.DataObject
) -> None:
    check_broken(inproc_account, operation, data)


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ_HTTP
@given(data=st.data())
def test_broken_requests_over_http(
    http_account: Fuzzed, operation: str, data: st.DataObject
) -> None:
    check_broken(http_account, operation, data)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()


def _nested(depth: int) -> bytes:
    return b'{"a":' + b"[" * depth + b"]" * depth + b"}"


def _long_name(length: int) -> bytes:
    return _json_bytes({"name": "x" * length})


def _text_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


SCALARS = st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8)
GARBAGE = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=64).map(_text_bytes),
    st.integers(1, 5000).map(_nested),
    st.integers(1, 200_000).map(_long_name),
    st.recursive(SCALARS, _containers, max_leaves=12).map(_json_bytes),
)


def check_garbage(account: Fuzzed, operation: str, body: bytes) -> None:
    """Any bytes as a body: never a 5xx; a 200 only with a valid output."""
    model = BATCH.operation_model(operation)
    uri = model.http["requestUri"].replace("{resourceArn}", "arn%3Aaws%3Abatch")
    answer = account.raw(model.http["method"], uri, body)
    assert_answer(operation, answer.status, answer.body, answer.code)


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ
@given(body=GARBAGE)
def test_garbage_bodies_in_process(inproc_account: Fuzzed, operation: str, body: bytes) -> None:
    check_garbage(inproc_account, operation, body)


@pytest.mark.parametrize("operation", OPERATIONS)
@FUZZ_HTTP
@given(body=GARBAGE)
def test_garbage_bodies_over_http(http_account: Fuzzed, operation: str, body: bytes) -> None:
    check_garbage(http_account, operation, body)


@pytest.fixture(scope="module", autouse=True)
def log_requests_sent() -> Iterator[None]:
    """With QUOTACTL_FUZZ_LOG set, append the requests this worker sent to that file."""
    yield
    log = os.environ.get("QUOTACTL_FUZZ_LOG")
    if log:
        with Path(log).open("a") as out:
            out.write(json.dumps({"examples": EXAMPLES, **SENT}) + "\n")


CLI_CALLS = [
    ["describe-scheduling-policies", "--arns", "{policy}", "{fair}"],
    ["list-scheduling-policies"],
    ["describe-service-environments"],
    ["describe-job-queues"],
    ["list-quota-shares", "--job-queue", "fq"],
    ["describe-quota-share", "--quota-share-arn", "{share}"],
    ["list-service-jobs", "--job-queue", "fq", "--job-status", "RUNNABLE"],
    ["describe-service-job", "--job-id", "{job}"],
    ["get-job-queue-snapshot", "--job-queue", "fq"],
    ["list-tags-for-resource", "--resource-arn", "{job}"],
]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("aws") is None, reason="the AWS CLI (`aws`) is not on PATH")
def test_the_aws_cli_parses_describe_and_list_responses(tmp_path: Path) -> None:
    server = Served(tmp_path / "state.db")
    batch = http_client(server.url)
    try:
        arns = make_queue(batch, "fq", shares={"a": {}})
        batch.update_job_queue(
            jobQueue="fq",
            jobStateTimeLimitActions=[
                {
                    "reason": "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED",
                    "state": "RUNNABLE",
                    "maxTimeSeconds": 600,
                    "action": "TERMINATE",
                }
            ],
        )
        fair = batch.create_scheduling_policy(
            name="fair",
            fairsharePolicy={
                "shareDecaySeconds": 3600,
                "shareDistribution": [{"shareIdentifier": "T*", "weightFactor": 0.5}],
            },
            tags={"team": "ml"},
        )["arn"]
        job = batch.submit_service_job(
            jobName="cli",
            jobQueue="fq",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(count=2),
            quotaShareName="a",
            retryStrategy={
                "attempts": 2,
                "evaluateOnExit": [{"action": "EXIT", "onStatusReason": "x*"}],
            },
            preemptionConfiguration={"preemptionRetriesBeforeTermination": 1},
            timeoutConfig={"attemptDurationSeconds": 600},
            tags={"team": "ml"},
        )["jobArn"]
        values = {"policy": arns["policy"], "fair": fair, "share": arns["a"], "job": job}
        env = {
            **os.environ,
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": str(tmp_path / "none"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        }
        for call in CLI_CALLS:
            args = [a.format(**values) for a in call]
            done = subprocess.run(
                ["aws", "batch", *args, "--endpoint-url", server.url, "--output", "json"],
                capture_output=True,
                text=True,
                timeout=60,
                env=env,
                check=False,
            )
            assert done.returncode == 0, (args, done.stderr)
            assert isinstance(json.loads(done.stdout), dict), args
    finally:
        batch.close()
        server.close()
