"""AWS's rest-json wire format for Batch: routes from botocore's model, JSON in and out.

The routing table comes from botocore's own service model (operation <-> method + requestUri),
so the emulator answers exactly the paths a botocore client sends: ``POST /v1/<op>`` for
everything except tagging (``POST|DELETE|GET /v1/tags/{resourceArn}``). Errors carry the code
in ``x-amzn-ErrorType`` and ``{"message": ...}`` as the body, which botocore turns into
``client.exceptions.ClientException`` with ``e.response["message"]`` set.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from quotactl.emulator.errors import ClientException, ServiceError, UnknownOperation

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


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
        import botocore.loaders

        model = botocore.loaders.create_loader().load_service_model("batch", "service-2")
        shapes = model["shapes"]
        self.routes: list[Route] = []
        self._by_path: dict[tuple[str, str], Route] = {}
        for name in operations:
            spec = model["operations"][name]
            http = spec["http"]
            uri = http["requestUri"]
            pattern = re.compile(
                "^"
                + re.sub(
                    r"\\{(\w+)\\}",
                    lambda m: f"(?P<{m.group(1)}>.+)",
                    re.escape(uri.split("?")[0]),
                )
                + "$"
            )
            query: dict[str, tuple[str, bool]] = {}
            members = shapes[spec["input"]["shape"]]["members"] if "input" in spec else {}
            for member, ref in members.items():
                if ref.get("location") == "querystring":
                    is_list = shapes[ref["shape"]]["type"] == "list"
                    query[ref.get("locationName", member)] = (member, is_list)
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
            try:
                decoded = json.loads(body)
            except (ValueError, UnicodeDecodeError) as exc:
                raise ClientException(f"the request body is not valid JSON: {exc}") from exc
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


def request_id() -> str:
    return str(uuid.uuid4())


def ok(members: Mapping[str, Any], rid: str) -> Response:
    body = json.dumps(members, separators=(",", ":")).encode()
    return Response(200, body, {"Content-Type": "application/json", "x-amzn-RequestId": rid})


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
