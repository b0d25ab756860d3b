"""quotactl's rest-json parser gives what botocore's gives, on every shape, junk included.

The bodies are drawn from the output and error shapes of botocore's own models: AWS Batch's
every operation, and four more rest-json services chosen because between them their shapes
have every trait the parser treats (``test_the_services_have_every_trait`` keeps that
true): documents, tagged unions, recursive shapes, timestamps, blobs, renamed members,
header-, headers- and status-code-bound members, JSON-valued headers and payload members.
In half the responses any node may be junk now and then (a wrong JSON type, ``null``, a
string where a number goes, a time or base64 text that does not parse); the other half are
well-formed throughout, so that one broken node does not hide the rest. The two parsers
must agree on the response, in the same key order, or fail with the same exception type.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

import botocore.session
import pytest
from botocore import parsers
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.aws.parser import ParserFactory, RestJsonParser
from quotactl.aws.session import Target, client
from tests.aws.test_listed_tags import applied_stack
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from pathlib import Path

    from botocore.model import OperationModel, ServiceModel, Shape

SERVICES = ("batch", "apigateway", "bedrock-agent", "dataexchange", "lambda")
TRAITS = {
    "document",
    "union",
    "recursive",
    "timestamp",
    "blob",
    "renamed",
    "location:header",
    "location:headers",
    "location:statusCode",
    "jsonvalue",
    "payload",
}
DEPTH = 4
"""Structures this deep are drawn as junk or empty: recursive shapes end."""

SCALAR = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4)
JUNK = SCALAR | st.lists(SCALAR, max_size=2) | st.dictionaries(st.text(max_size=3), SCALAR)
TIMES = st.sampled_from(["2026-12-02T10:00:00Z", "2026-12-02T10:00:00.123+01:00", "1764669600"])
BLOBS = st.sampled_from(["aGVsbG8=", "", "aGVsbG8", "!!", "3q2+7w=="])


@cache
def model(name: str) -> ServiceModel:
    return botocore.session.get_session().get_service_model(name)


def operations(name: str) -> list[OperationModel]:
    """The operations whose output a parser walks (an event stream is read as it arrives)."""
    service = model(name)
    found = [service.operation_model(op) for op in service.operation_names]
    return [op for op in found if op.output_shape is not None and not op.has_event_stream_output]


def wire(shape: Shape, junk: bool, depth: int = 0) -> st.SearchStrategy[Any]:
    """A JSON value as the wire might carry it for ``shape``: well-formed, or with ``junk``
    (now and then a value of the wrong JSON type or that does not convert), rarely enough
    that one broken node does not hide the rest of a response."""
    formed = _formed(shape, junk, depth)
    return st.one_of(*[formed] * 9, JUNK) if junk else formed


def _later(shape: Shape, junk: bool, depth: int) -> st.SearchStrategy[Any]:
    """``wire(shape, junk, depth)``, built when first drawn (a recursive shape has no end)."""
    return st.deferred(lambda: wire(shape, junk, depth))


def _formed(shape: Shape, junk: bool, depth: int) -> st.SearchStrategy[Any]:
    kind = shape.type_name
    if kind == "structure":
        if shape.is_document_type or depth >= DEPTH:  # type: ignore[attr-defined]
            return JUNK if junk or shape.is_document_type else st.just({})  # type: ignore[attr-defined]
        members: dict[str, Shape] = shape.members  # type: ignore[attr-defined]
        drawn = {
            member.serialization.get("name", name): _later(member, junk, depth + 1)
            for name, member in members.items()
        }
        return st.fixed_dictionaries(
            {}, optional={**drawn, "zzUnknownMember": JUNK, "__type": st.text(max_size=6)}
        )
    if kind == "list":
        member = shape.member  # type: ignore[attr-defined]
        return st.lists(st.none() | _later(member, junk, depth + 1), max_size=3)
    if kind == "map":
        value = shape.value  # type: ignore[attr-defined]
        return st.dictionaries(st.text(max_size=4), _later(value, junk, depth + 1), max_size=3)
    return (JUNKY if junk else PROPER).get(kind, JUNK)


PROPER: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=8),
    "integer": st.integers(-(2**31), 2**31),
    "long": st.integers(-(2**63), 2**63),
    "float": st.floats(),
    "double": st.floats() | st.integers(),
    "boolean": st.booleans(),
    "timestamp": st.integers(0, 2**32) | st.floats(0, 2**32) | TIMES,
    "blob": st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()),
}
"""Values of the right JSON type for each scalar shape."""
JUNKY: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=8) | st.integers(),
    "integer": st.integers() | st.floats(allow_nan=False) | st.sampled_from(["7", "x", True]),
    "long": st.integers(-(2**63), 2**63) | st.sampled_from(["-7", "1.5", False]),
    "float": st.floats() | st.sampled_from(["1.5", "Infinity", "x", True]),
    "double": st.floats() | st.integers() | st.sampled_from(["NaN", "2"]),
    "boolean": st.booleans() | st.sampled_from(["true", "FALSE", "x", 0, 1, 2.5]),
    "timestamp": st.integers(0, 2**32) | TIMES | st.sampled_from(["Tue, 1 Dec", "x", True]),
    "blob": BLOBS,
}
"""The same, with values a parser has to convert or refuse."""


@st.composite
def responses(draw: st.DrawFn, shape: Shape, status: int) -> dict[str, Any]:
    """A whole HTTP response for ``shape``: headers for its bound members, a JSON body."""
    headers = {"x-amzn-requestid": "request-1"}
    for name, member in shape.members.items():  # type: ignore[attr-defined]
        location = member.serialization.get("location")
        header = member.serialization.get("name", name)
        if location == "header" and draw(st.booleans()):
            if member.serialization.get("jsonvalue"):
                text = json.dumps(draw(JUNK))
                headers[header] = base64.b64encode(text.encode()).decode()
            elif member.type_name == "list":
                headers[header] = ", ".join(draw(st.lists(st.text("abc", max_size=3))))
            elif member.type_name == "timestamp":
                headers[header] = draw(TIMES)
            else:
                headers[header] = draw(st.text("ab1.", max_size=4))
        elif location == "headers" and draw(st.booleans()):
            headers[f"{header}meta"] = draw(st.text("ab", max_size=3))
    body = draw(wire(shape, junk=draw(st.booleans())))
    if status >= 300 and isinstance(body, dict):
        body.setdefault("__type", shape.name)
    return {
        "body": json.dumps(body).encode(),
        "headers": headers,
        "status_code": status,
        "context": {"operation_name": "Drawn"},
    }


def outcome(parser: parsers.ResponseParser, response: dict[str, Any], shape: Shape) -> str:
    """What a parser makes of a response: its result's repr (values and key order), or the
    type of the exception it raised."""
    try:
        return repr(parser.parse(copy.deepcopy(response), shape))
    except Exception as exc:  # the same failure is part of the contract
        return f"raised {type(exc).__name__}"


@cache
def cases() -> list[tuple[str, str, bool]]:
    """(service, shape name, is an error shape), every output and error shape of SERVICES."""
    found = []
    for name in SERVICES:
        found += [(name, op.name, False) for op in operations(name)]
        found += [(name, shape.name, True) for shape in model(name).error_shapes]
    return found


def shape_of(service: str, name: str, error: bool) -> Shape:
    if error:
        return model(service).shape_for(name)
    return model(service).operation_model(name).output_shape  # type: ignore[return-value]


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_parser_gives_what_botocores_gives(data: st.DataObject) -> None:
    service, name, error = data.draw(st.sampled_from(cases()), label="shape")
    shape = shape_of(service, name, error)
    response = data.draw(responses(shape, 400 if error else 200), label="response")
    assert outcome(RestJsonParser(), response, shape) == outcome(
        parsers.RestJSONParser(), response, shape
    )


@pytest.mark.parametrize("operation", [op.name for op in operations("batch")])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_batch_response_parses_as_botocore_parses_it(
    operation: str, data: st.DataObject
) -> None:
    shape = shape_of("batch", operation, error=False)
    response = data.draw(responses(shape, 200))
    # one parser for all examples, as a client keeps one: walks built once are reused
    assert outcome(_batch_parser(), response, shape) == outcome(
        parsers.RestJSONParser(), response, shape
    )


@cache
def _batch_parser() -> RestJsonParser:
    return RestJsonParser()


def traits(shape: Shape, found: set[str], seen: set[str], stack: frozenset[str]) -> None:
    """The traits of ``shape`` and everything under it, into ``found``."""
    serialization = shape.serialization
    if "location" in serialization:
        found.add("location:" + serialization["location"])
    if serialization.get("jsonvalue"):
        found.add("jsonvalue")
    kind = shape.type_name
    if kind in ("timestamp", "blob"):
        found.add(kind)
    elif kind == "list":
        traits(shape.member, found, seen, stack)  # type: ignore[attr-defined]
    elif kind == "map":
        traits(shape.value, found, seen, stack)  # type: ignore[attr-defined]
    elif kind == "structure":
        if shape.is_document_type:  # type: ignore[attr-defined]
            found.add("document")
            return
        if shape.is_tagged_union:  # type: ignore[attr-defined]
            found.add("union")
        if "payload" in serialization:
            found.add("payload")
        if shape.name in stack:
            found.add("recursive")
            return
        if shape.name in seen:
            return
        seen.add(shape.name)
        for name, member in shape.members.items():  # type: ignore[attr-defined]
            if member.serialization.get("name", name) != name and not member.serialization.get(
                "location"
            ):
                found.add("renamed")
            traits(member, found, seen, stack | {shape.name})


def test_the_services_have_every_trait() -> None:
    found: set[str] = set()
    for service, name, error in cases():
        traits(shape_of(service, name, error), found, set(), frozenset())
    assert found >= TRAITS, TRAITS - found


def service(shapes: dict[str, Any]) -> ServiceModel:
    """A rest-json service model of ``shapes`` alone."""
    from botocore.model import ServiceModel

    metadata = {"protocol": "rest-json", "apiVersion": "2026-12-02", "endpointPrefix": "x"}
    return ServiceModel({"metadata": metadata, "operations": {}, "shapes": shapes})


@pytest.mark.parametrize("kind", sorted(PROPER))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_each_scalar_converts_as_botocore_converts_it(kind: str, data: st.DataObject) -> None:
    """Every kind of value for every scalar type, alone, in a list and in a map."""
    shape = service(
        {
            "Out": {
                "type": "structure",
                "members": {
                    "one": {"shape": "Value"},
                    "many": {"shape": "Values"},
                    "byKey": {"shape": "ValueMap"},
                },
            },
            "Value": {"type": kind},
            "Values": {"type": "list", "member": {"shape": "Value"}},
            "ValueMap": {"type": "map", "key": {"shape": "Key"}, "value": {"shape": "Value"}},
            "Key": {"type": "string"},
        }
    ).shape_for("Out")
    value = data.draw(PROPER[kind] | JUNKY[kind] | JUNK)
    body = {"one": value, "many": [value, None], "byKey": {"k": value}}
    response = {"body": json.dumps(body).encode(), "headers": {}, "status_code": 200}
    assert outcome(RestJsonParser(), response, shape) == outcome(
        parsers.RestJSONParser(), response, shape
    )


RECURSIVE = {
    "Node": {
        "type": "structure",
        "members": {
            "children": {"shape": "Nodes"},
            "size": {"shape": "Size", "locationName": "sizeOnTheWire"},
        },
    },
    "Nodes": {"type": "list", "member": {"shape": "Node"}},
    "Size": {"type": "long"},
}


def test_a_recursive_shape_is_walked_as_deep_as_the_value_goes() -> None:
    shape = service(RECURSIVE).shape_for("Node")
    node: dict[str, Any] = {"sizeOnTheWire": 1}
    for size in range(2, 60):
        node = {"children": [node, None, {"size": "not read"}], "sizeOnTheWire": str(size)}
    response = {"body": json.dumps(node).encode(), "headers": {}, "status_code": 200}
    parsed = outcome(RestJsonParser(), response, shape)
    assert parsed == outcome(parsers.RestJSONParser(), response, shape)
    assert parsed.count("'size': 1}") == 1  # the innermost node, 58 levels down, as an int


def test_quotactls_clients_parse_with_it_and_read_what_botocore_reads(tmp_path: Path) -> None:
    """Through whole clients on the embedded emulator: the same responses either way."""
    applied_stack(tmp_path)
    batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
    assert isinstance(batch._endpoint._response_parser_factory, ParserFactory)  # type: ignore[attr-defined]
    plain = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
    plain._endpoint._response_parser_factory = parsers.ResponseParserFactory()  # type: ignore[attr-defined]
    share = batch.list_quota_shares(jobQueue="q")["quotaShares"][0]["quotaShareName"]
    for count in (1, 8):  # one that fits the queue, one that waits
        job = batch.submit_service_job(
            jobName=f"j{count}",
            jobQueue="q",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload("ml.g5.xlarge", count, 3600),
            quotaShareName=share,
            tags={"team": "vision"},
        )
    calls: list[tuple[str, dict[str, Any]]] = [
        ("describe_service_environments", {}),
        ("describe_job_queues", {}),
        ("list_quota_shares", {"jobQueue": "q"}),
        ("describe_service_job", {"jobId": job["jobId"]}),
    ]
    calls += [
        ("list_service_jobs", {"jobQueue": "q", "jobStatus": status})
        for status in ("SUBMITTED", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING")
    ]
    listed = 0
    for method, params in calls:
        mine, theirs = getattr(batch, method)(**params), getattr(plain, method)(**params)
        del mine["ResponseMetadata"], theirs["ResponseMetadata"]  # a request id each
        assert repr(mine) == repr(theirs)
        listed += len(mine.get("jobSummaryList", []))
        assert method == "list_service_jobs" or len(repr(mine)) > 100  # a body was walked
    assert listed == 2


def test_threads_sharing_a_new_parser_get_botocores_result() -> None:
    """A client's one parser meets its first responses on many threads at once (the read
    pool): every thread gets botocore's result while the walks are being built."""
    shape = service(RECURSIVE).shape_for("Node")
    node: dict[str, Any] = {"sizeOnTheWire": 1}
    for size in range(2, 30):
        node = {"children": [node, {"sizeOnTheWire": size}], "sizeOnTheWire": size}
    response = {"body": json.dumps(node).encode(), "headers": {}, "status_code": 200}
    expected = outcome(parsers.RestJSONParser(), response, shape)
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes, inside the builds
    try:
        for _ in range(60):
            found = _on_threads(16, RestJsonParser(), response, shape)
            assert found == [expected] * 16
    finally:
        sys.setswitchinterval(switching)


def _on_threads(
    count: int, parser: RestJsonParser, response: dict[str, Any], shape: Shape
) -> list[str]:
    """What ``count`` threads, started at once, each make of ``response`` with ``parser``."""
    import threading

    start = threading.Barrier(count)
    found: list[str] = []

    def parse() -> None:
        start.wait()
        found.append(outcome(parser, response, shape))

    threads = [threading.Thread(target=parse) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found
