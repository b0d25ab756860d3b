"""HTTP/1.1 framing for ``local serve``: requests parsed from a connection's bytes with hard
limits, responses built as one buffer (one ``send``: no Nagle/delayed-ACK stall), and the
loopback check that keeps a browser page on another origin away from a local account.

Malformed framing (request line, headers, ``Content-Length``) is answered here with an
AWS-shaped 4xx (``x-amzn-ErrorType`` + ``{"message": ...}``) and the connection is closed,
because the end of a badly framed request cannot be known. The JSON inside a well-framed
body is the wire layer's business.
"""

from __future__ import annotations

import ipaddress
import json
import re
import uuid
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from urllib.parse import urlsplit

MAX_BODY = 1024 * 1024
"""The largest request body accepted (AWS Batch requests are a few KiB; a service job's
payload is capped at 10,000 characters by botocore's model)."""
MAX_HEAD = 64 * 1024
"""The request line and headers together; larger is 431."""
MAX_HEADERS = 100

_TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
_DIGITS = re.compile(r"^[0-9]+$")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class FramingError(Exception):
    """A request that cannot be framed: answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str, code: str = "ClientException") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    headers: dict[str, str]  # names as sent
    host: str | None
    origin: str | None
    body: bytes
    keep_alive: bool


@dataclass
class _Head:
    method: str
    target: str
    headers: dict[str, str]
    lower: dict[str, str]
    length: int
    keep_alive: bool


class Parser:
    """One connection's unread bytes -> complete requests, in order."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self._head: _Head | None = None
        self._continued = False

    def feed(self, data: bytes) -> None:
        self.buffer += data

    @property
    def pending(self) -> bool:
        """A request has begun but is not complete yet."""
        return bool(self.buffer) or self._head is not None

    def wants_continue(self) -> bool:
        """The client sent ``Expect: 100-continue`` and waits for the go-ahead (once)."""
        head = self._head
        if head is None or self._continued or head.lower.get("expect") != "100-continue":
            return False
        self._continued = True
        return len(self.buffer) < head.length

    def next_request(self) -> Request | None:
        """The next complete request, None if more bytes are needed; raises FramingError."""
        if self._head is None:
            while self.buffer[:2] == b"\r\n":  # RFC 9112, section 2.2: ignore leading empty lines
                del self.buffer[:2]
            end = self.buffer.find(b"\r\n\r\n", 0, MAX_HEAD + 4)
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    raise FramingError(431, f"request headers exceed {MAX_HEAD} bytes")
                return None
            raw = bytes(self.buffer[:end])
            del self.buffer[: end + 4]
            self._head = _parse_head(raw)
            self._continued = False
        head = self._head
        if len(self.buffer) < head.length:
            return None
        body = bytes(self.buffer[: head.length])
        del self.buffer[: head.length]
        self._head = None
        return Request(
            head.method,
            head.target,
            head.headers,
            head.lower.get("host"),
            head.lower.get("origin"),
            body,
            head.keep_alive,
        )


def _parse_head(head: bytes) -> _Head:
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not _TOKEN.match(parts[0]) or not parts[1]:
        raise FramingError(400, "malformed HTTP request line")
    version = parts[2]
    if version not in (b"HTTP/1.1", b"HTTP/1.0"):
        if not version.startswith(b"HTTP/"):
            raise FramingError(400, "malformed HTTP request line")
        raise FramingError(505, "only HTTP/1.0 and HTTP/1.1 are served")
    if len(lines) - 1 > MAX_HEADERS:
        raise FramingError(431, f"more than {MAX_HEADERS} request headers")
    headers: dict[str, str] = {}
    lower: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.match(name):  # also refuses obsolete line folding
            raise FramingError(400, "malformed HTTP header line")
        key, text = name.decode("ascii"), value.strip(b" \t").decode("latin-1")
        low = key.lower()
        if low in lower:
            if low in ("host", "content-length", "transfer-encoding"):
                raise FramingError(400, f"the {key} header is repeated")
            text = f"{lower[low]}, {text}"
        headers[key] = lower[low] = text
    method = parts[0].decode("ascii")
    return _Head(
        method,
        parts[1].decode("latin-1"),
        headers,
        lower,
        _body_length(method, lower),
        _keep_alive(version, lower.get("connection", "")),
    )


def _body_length(method: str, lower: dict[str, str]) -> int:
    if "transfer-encoding" in lower:
        raise FramingError(
            411, "chunked or other transfer codings are not accepted: send Content-Length"
        )
    raw = lower.get("content-length")
    if raw is None:
        if method in _BODY_METHODS:
            raise FramingError(411, f"a {method} request needs a Content-Length header")
        return 0
    if not _DIGITS.match(raw):
        raise FramingError(400, f"invalid Content-Length {raw[:40]!r}: not a byte count")
    if len(raw) > 12 or int(raw) > MAX_BODY:
        raise FramingError(413, f"the request body ({raw[:40]} bytes) exceeds {MAX_BODY} bytes")
    length = int(raw)
    return length


def _keep_alive(version: bytes, connection: str) -> bool:
    tokens = {t.strip().lower() for t in connection.split(",")}
    if version == b"HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


# -- the loopback check -------------------------------------------------------------------
def is_loopback_name(host: str) -> bool:
    """``localhost``, a name under ``.localhost`` (RFC 6761) or a loopback IP literal."""
    name = host.strip().rstrip(".").lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_part(authority: str) -> str:
    if authority.startswith("["):
        return authority.split("]", 1)[0] + "]"
    name, _, port = authority.rpartition(":")
    return name if name and port.isdigit() else authority


def refusal(request: Request) -> str | None:
    """Why a request that names a non-loopback Host or Origin is refused (None: allowed).

    A page in a browser can make it send requests to 127.0.0.1 (a form post) or, by DNS
    rebinding, under its own name: the Origin header catches the first, Host the second.
    """
    if not request.host:
        return "the Host header is missing"
    if not is_loopback_name(_host_part(request.host)):
        return f"Host {request.host[:80]!r} is not a loopback name"
    if request.origin is not None:
        origin = urlsplit(request.origin).hostname
        if not origin or not is_loopback_name(origin):
            return f"requests from the web origin {request.origin[:80]!r} are not served"
    return None


# -- responses ----------------------------------------------------------------------------
def response_bytes(
    status: int, headers: dict[str, str], body: bytes, *, keep_alive: bool = True
) -> bytes:
    """Status line, headers and body in one buffer."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    lines = [f"HTTP/1.1 {status} {phrase}"]
    if "Date" not in headers:  # the emulator's answers carry its emulated clock there
        lines.append(f"Date: {formatdate(usegmt=True)}")
    lines += [f"{key}: {value}" for key, value in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    if not keep_alive:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def error_bytes(status: int, code: str, message: str, *, keep_alive: bool = False) -> bytes:
    """An AWS-shaped error: botocore reads the code from ``x-amzn-ErrorType``."""
    headers = {
        "Content-Type": "application/json",
        "x-amzn-RequestId": str(uuid.uuid4()),
        "x-amzn-ErrorType": code,
    }
    body = json.dumps({"message": message}).encode()
    return response_bytes(status, headers, body, keep_alive=keep_alive)
