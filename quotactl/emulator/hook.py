"""The in-process way in: a botocore ``before-send`` handler (moto's ``BotocoreStubber``).

``before-send`` fires after botocore has validated, serialised and signed the request, and
returning an ``AWSResponse`` replaces the HTTP send, so everything else in boto3 (parameter
validation, parsing, modelled exceptions, retries, paginators) runs exactly as against AWS.
Register it on a session before building clients: ``session.events.register(
"before-send.batch", BotocoreHook(emulator))``.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from collections.abc import Iterator

    from botocore.awsrequest import AWSPreparedRequest, AWSResponse

    from quotactl.emulator.service import Emulator


class _RawBody(io.BytesIO):
    """The ``raw`` that ``AWSResponse`` reads the body from (it calls ``stream()``)."""

    def stream(self, **_: Any) -> Iterator[bytes]:
        chunk = self.read()
        while chunk:
            yield chunk
            chunk = self.read()


def body_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode()
    data = body.read()
    return data.encode() if isinstance(data, str) else bytes(data)


class BotocoreHook:
    """Answers a botocore Batch request from the emulator instead of the network."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    def __call__(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        from botocore.awsrequest import AWSResponse
        from botocore.compat import HTTPHeaders

        url = urlsplit(request.url)
        response = self.emulator.handle(
            request.method or "POST",
            url.path,
            url.query,
            request.headers,
            body_bytes(request.body),
        )
        headers = HTTPHeaders()
        for key, value in response.headers.items():
            headers[key] = value
        return AWSResponse(request.url, response.status, headers, _RawBody(response.body))
