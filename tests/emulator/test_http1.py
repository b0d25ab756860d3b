"""The request framer over arbitrary input: whatever the bytes and however they are split,
it yields requests or a FramingError (never another exception), and it never holds more than
the header and body limits allow."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from quotactl.emulator.wire.http1 import MAX_BODY, MAX_HEAD, FramingError, Parser, Request

_RECV = 64 * 1024


def feed_all(chunks: list[bytes]) -> tuple[list[Request], FramingError | None, int]:
    """Requests framed, the error that stopped framing (if any), the largest buffer seen."""
    parser = Parser()
    found: list[Request] = []
    largest = 0
    for chunk in chunks:
        parser.feed(chunk)
        largest = max(largest, len(parser.buffer))
        try:
            while (request := parser.next_request()) is not None:
                found.append(request)
        except FramingError as exc:
            return found, exc, largest
    return found, None, largest


def request_bytes(body: bytes, extra: str = "") -> bytes:
    head = f"POST /v1/x HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
    return head.encode() + body


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_arbitrary_bytes_frame_or_fail_cleanly(chunks: list[bytes]) -> None:
    _, error, largest = feed_all(chunks)
    assert error is None or 400 <= error.status < 600
    assert largest <= MAX_HEAD + MAX_BODY + 4 + sum(map(len, chunks))


@settings(deadline=None, max_examples=200)
@given(
    st.lists(st.binary(max_size=200), min_size=1, max_size=4),
    st.lists(st.integers(min_value=0), max_size=10),
)
def test_requests_split_anywhere_frame_the_same(bodies: list[bytes], cuts: list[int]) -> None:
    data = b"".join(request_bytes(body) for body in bodies)
    found, error, _ = feed_all(split(data, cuts))
    assert error is None
    assert [r.body for r in found] == bodies
    assert all(r.host == "localhost" and r.keep_alive for r in found)


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"POST /v1/x HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        (b"POST /v1/x HTTP/1.1\r\n folded: value\r\n\r\n", 400),
        (b"POST /v1/x HTTP/1.1\r\nBad Name: v\r\n\r\n", 400),
        (b"POST /v1/x HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 0\r\n\r\n", 400),
        (b"POST /v1/x HTTP/1.1\r\n" + b"X: y\r\n" * 101 + b"\r\n", 431),
    ],
)
def test_malformed_heads_are_refused(head: bytes, status: int) -> None:
    _, error, _ = feed_all([head])
    assert error is not None
    assert error.status == status


def test_a_head_that_never_ends_is_cut_at_the_limit() -> None:
    chunks = [b"POST /v1/x HTTP/1.1\r\nX: "] + [b"a" * _RECV] * 2
    _, error, largest = feed_all(chunks)
    assert error is not None
    assert error.status == 431
    assert largest <= MAX_HEAD + _RECV
