"""AWS's rest-json wire format for Batch: routes from botocore's model, JSON in and out.

A request goes wire -> ``shapes`` check -> handler: the body is parsed as strict JSON (no
``NaN``/``Infinity``, at most ``MAX_DEPTH`` levels of nesting), merged with the URI labels
and query parameters, and checked against the operation's input shape before any handler
runs, so every operation (in-process and over HTTP) refuses what AWS refuses with a 400
``ClientException`` naming the member.

The routing table comes from botocore's own service model (operation <-> method + requestUri),
so the emulator answers exactly the paths a botocore client sends: ``POST /v1/<op>`` for
everything except tagging (``POST|DELETE|GET /v1/tags/{resourceArn}``). Errors carry the code
in ``x-amzn-ErrorType`` and ``{"message": ...}`` as the body, which botocore turns into
``client.exceptions.ClientException`` with ``e.response["message"]`` set.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from quotactl.emulator.errors import ClientException, ServiceError, UnknownOperation
from quotactl.emulator.wire import shapes

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from botocore.model import Shape

MAX_DEPTH = 32
"""Nesting a request body may have: Batch's deepest input is 5 levels; JSON nested deeper
is refused before it is parsed (a recursive parser would run out of stack)."""
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class Response:
    """What goes back to the client, whatever the transport."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Route:
    operation: str
    method: str
    pattern: re.Pattern[str]
    query: Mapping[str, tuple[str, bool]]  # query parameter -> (member, is a list)


class Router:
    """Maps (method, path, query, body) to (operation, request members)."""

    def __init__(self, operations: Iterable[str]) -> None:
        service = shapes.service_model("batch")
        self.inputs: dict[str, Shape | None] = {}
        self.routes: list[Route] = []
        self._by_path: dict[tuple[str, str], Route] = {}
        for name in operations:
            operation = service.operation_model(name)
            http = operation.http
            uri = http["requestUri"]
            pattern = re.compile(
                "^"
                + re.sub(
                    r"\\{(\w+)\\}",
                    lambda m: f"(?P<{m.group(1)}>.*)",
                    re.escape(uri.split("?")[0]),
                )
                + "$"
            )
            query: dict[str, tuple[str, bool]] = {}
            shape = self.inputs[name] = operation.input_shape
            for member, ref in shape.members.items() if shape is not None else ():
                if ref.serialization.get("location") == "querystring":
                    location = ref.serialization.get("name", member)
                    query[location] = (member, ref.type_name == "list")
            route = Route(name, http["method"], pattern, query)
            self.routes.append(route)
            if "{" not in uri:
                self._by_path[(route.method, uri)] = route

    def parse(self, method: str, path: str, query: str, body: bytes) -> tuple[str, dict[str, Any]]:
        """The operation and its members; raises ServiceError for anything unparseable."""
        route = self._by_path.get((method, path))
        labels: dict[str, str] = {}
        if route is None:
            for candidate in self.routes:
                match = candidate.pattern.match(path) if candidate.method == method else None
                if match:
                    route, labels = candidate, {k: unquote(v) for k, v in match.groupdict().items()}
                    break
        if route is None:
            raise UnknownOperation(f"no AWS Batch operation at {method} {path}")
        params: dict[str, Any] = {}
        if body.strip():
            decoded = parse_json(body, "the request body")
            if not isinstance(decoded, dict):
                raise ClientException("the request body must be a JSON object")
            params.update(decoded)
        params.update(labels)
        if query and route.query:
            for key, values in parse_qs(query, keep_blank_values=True).items():
                if key in route.query:
                    member, is_list = route.query[key]
                    params[member] = values if is_list else values[-1]
        return route.operation, params

    def validate(self, operation: str, params: dict[str, Any]) -> None:
        """Refuse members that break the operation's input shape (a ClientException)."""
        shape = self.inputs[operation]
        found = shapes.problems(params, shape) if shape is not None else []
        if found:
            raise ClientException(shapes.report(found))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {shapes.shown(text)} is out of range")
    return value


def parse_json(text: bytes | str, what: str) -> Any:
    """Strict JSON (no NaN/Infinity, numbers a double holds) nested at most ``MAX_DEPTH`` deep.

    Raises ClientException naming ``what``; never RecursionError or UnicodeDecodeError.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and nesting(raw) > MAX_DEPTH:
        raise ClientException(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ClientException(f"{what} is not valid JSON: {exc}") from exc


def nesting(raw: bytes) -> int:
    """How deeply arrays and objects nest in ``raw`` (brackets inside strings not counted)."""
    depth = deepest = 0
    for byte in _STRING.sub(b'""', raw).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def request_id() -> str:
    return str(uuid.uuid4())


class StoredJSON(list[str]):
    """A list member whose items are JSON texts already (a listing's stored summaries): the
    response body splices them in as they are instead of parsing and serialising them again."""


def ok(members: Mapping[str, Any], rid: str) -> Response:
    return Response(
        200, _encode(members), {"Content-Type": "application/json", "x-amzn-RequestId": rid}
    )


def _encode(members: Mapping[str, Any]) -> bytes:
    stored = {k: v for k, v in members.items() if isinstance(v, StoredJSON)}
    rest = json.dumps({k: v for k, v in members.items() if k not in stored}, separators=(",", ":"))
    if not stored:
        return rest.encode()
    spliced = [f"{json.dumps(k)}:[{','.join(v)}]" for k, v in stored.items()]
    if rest != "{}":
        spliced.append(rest[1:-1])
    return ("{" + ",".join(spliced) + "}").encode()


def decoded(members: dict[str, Any]) -> dict[str, Any]:
    """``members`` with every ``StoredJSON`` list parsed: what a client would receive."""
    return {
        k: [json.loads(item) for item in v] if isinstance(v, StoredJSON) else v
        for k, v in members.items()
    }


def error(exc: ServiceError, rid: str) -> Response:
    body = json.dumps({"message": exc.message}).encode()
    return Response(
        exc.status,
        body,
        {
            "Content-Type": "application/json",
            "x-amzn-RequestId": rid,
            "x-amzn-ErrorType": exc.code,
        },
    )
