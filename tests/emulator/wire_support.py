"""Raw requests to the emulator (bodies boto3 would refuse to send) and a checker of
responses against botocore's OUTPUT shapes (required members, types, enums, no extras)."""

from __future__ import annotations

import http.client
import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from quotactl.emulator import Emulator
from quotactl.emulator.wire.shapes import service_model
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from botocore.model import Shape

    from tests.emulator.conftest import Account

BATCH = service_model("batch")
AWS_OMITS = {("DescribeServiceJobResponse", "startedAt")}
"""Members the model calls required that AWS leaves out: ``startedAt`` until the job has
started (as for Batch's JobDetail, https://github.com/brendanhay/amazonka/pull/561)."""
_DESCRIBED_SHARE: Any = BATCH.operation_model("DescribeQuotaShare").output_shape
AWS_ADDS = {("QuotaShareDetail", "tags"): _DESCRIBED_SHARE.members["tags"]}
"""Members AWS sends that the model leaves out, with their shapes: ListQuotaShares' items
carry their tags in the API reference's example (the same map as DescribeQuotaShare's)."""


@dataclass(frozen=True)
class Answer:
    """One response as it crossed the wire."""

    status: int
    code: str | None  # x-amzn-ErrorType
    body: Any  # the decoded JSON document

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if isinstance(self.body, dict) else ""


def path_of(operation: str) -> tuple[str, str]:
    http_spec = BATCH.operation_model(operation).http
    return http_spec["method"], http_spec["requestUri"]


def raw(
    account: Account, operation: str, body: bytes | str | dict[str, Any], *, path: str = ""
) -> Answer:
    """Send ``body`` as is (bytes/str) or as JSON (a dict) to ``operation``'s route."""
    method, uri = path_of(operation)
    data = body if isinstance(body, bytes) else _encode(body)
    return send(account, method, path or uri, data)


def _encode(body: str | dict[str, Any]) -> bytes:
    text = body if isinstance(body, str) else json.dumps(body)
    return text.encode("utf-8", "surrogatepass")


def send(account: Account, method: str, target: str, data: bytes) -> Answer:
    path, _, query = target.partition("?")
    if account.transport == "inproc":
        with Emulator(account.state, timing=TEST_TIMING) as emulator:
            response = emulator.handle(method, path, query, {}, data)
        return Answer(
            response.status, response.headers.get("x-amzn-ErrorType"), _decode(response.body)
        )
    url = urlsplit(account.client.meta.endpoint_url)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    try:
        connection.request(method, target, body=data, headers={"Content-Type": "application/json"})
        reply = connection.getresponse()
        return Answer(reply.status, reply.getheader("x-amzn-ErrorType"), _decode(reply.read()))
    finally:
        connection.close()


def _decode(data: bytes) -> Any:
    return json.loads(data) if data else {}


def output_problems(operation: str, document: Any) -> list[str]:
    """Every way a 200 response body breaks the operation's output shape."""
    shape = BATCH.operation_model(operation).output_shape
    found: list[str] = []
    if shape is not None:
        _walk(document, shape, "output", found)
    return found


def _walk(value: Any, shape: Shape, where: str, found: list[str]) -> None:
    kind = shape.type_name
    if kind == "structure":
        if not isinstance(value, dict):
            found.append(f"{where}: expected an object, got {value!r:.60}")
            return
        members = shape.members  # type: ignore[attr-defined]
        for name in shape.metadata.get("required", []):
            if value.get(name) is None and (shape.name, name) not in AWS_OMITS:
                found.append(f"{where}.{name}: required member missing")
        for name, item in value.items():
            member = members.get(name) or AWS_ADDS.get((shape.name, name))
            if member is None:
                found.append(f"{where}.{name}: not a member of {shape.name}")
            elif item is not None:
                _walk(item, member, f"{where}.{name}", found)
    elif kind == "list":
        if not isinstance(value, list):
            found.append(f"{where}: expected an array, got {value!r:.60}")
            return
        for index, item in enumerate(value):
            _walk(item, shape.member, f"{where}[{index}]", found)  # type: ignore[attr-defined]
    elif kind == "map":
        if not isinstance(value, dict):
            found.append(f"{where}: expected an object, got {value!r:.60}")
            return
        for key, item in value.items():
            _walk(key, shape.key, f"{where} key", found)  # type: ignore[attr-defined]
            _walk(item, shape.value, f"{where}.{key}", found)  # type: ignore[attr-defined]
    else:
        _scalar(value, shape, where, found)


def _scalar(value: Any, shape: Shape, where: str, found: list[str]) -> None:
    kind = shape.type_name
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": number and isinstance(value, int) and -(2**31) <= value < 2**31,
        "long": number and isinstance(value, int) and -(2**63) <= value < 2**63,
        "float": number and math.isfinite(value),
        "double": number and math.isfinite(value),
        "timestamp": number or isinstance(value, str),
    }.get(kind, True)
    if not ok:
        found.append(f"{where}: {value!r:.60} is not a valid {kind} ({shape.name})")
        return
    allowed = shape.metadata.get("enum")
    if allowed and value not in allowed:
        found.append(f"{where}: {value!r:.60} is not one of {shape.name}'s values")
