"""`local serve`'s HTTP layer under hostile and careless clients: every bad framing is an
AWS-shaped 4xx (never a traceback or an unbounded buffer), idle and half-sent connections
cost no thread and are closed on time, and only loopback Host/Origin names are answered."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.emulator import Emulator
from quotactl.emulator.server import EmulatorServer
from quotactl.emulator.wire.http1 import MAX_BODY, is_loopback_name
from tests.conftest import TEST_TIMING
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

LIST = "POST /v1/listschedulingpolicies HTTP/1.1\r\nHost: 127.0.0.1\r\n"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., EmulatorServer]]:
    """Start an in-process server (options as EmulatorServer's) in a thread."""
    started: list[tuple[EmulatorServer, threading.Thread]] = []
    emulator = Emulator(tmp_path / "s.db", timing=TEST_TIMING)

    def start(**options: Any) -> EmulatorServer:
        server = EmulatorServer(emulator, "127.0.0.1", 0, **options)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
    emulator.close()


def connect(server: EmulatorServer) -> socket.socket:
    return socket.create_connection(server.server_address, timeout=10)


def exchange(server: EmulatorServer, data: bytes) -> tuple[http.client.HTTPResponse, Any, bool]:
    """Send raw bytes, read one response; also whether the server then closed."""
    with connect(server) as sock:
        sock.sendall(data)
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = json.loads(response.read() or b"null")
        sock.settimeout(0.3)
        try:
            closed = sock.recv(1) == b""
        except TimeoutError:
            closed = False  # kept alive
    return response, body, closed


def answered(server: EmulatorServer) -> bool:
    """A stock boto3 client still gets its answer."""
    batch = http_client(server.server_url)
    try:
        policies: list[Any] = batch.list_scheduling_policies()["schedulingPolicies"]
        return policies == []
    finally:
        batch.close()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ("Content-Length: -1\r\n", 400),
        ("Content-Length: abc\r\n", 400),
        ("Content-Length: 1e3\r\n", 400),
        ("Content-Length: +2\r\n", 400),
        ("Content-Length: 2\r\nContent-Length: 3\r\n", 400),
        (f"Content-Length: {MAX_BODY + 1}\r\n", 413),
        ("Content-Length: 99999999999999999999999999999999\r\n", 413),
        ("Content-Length: " + "9" * 5000 + "\r\n", 413),
        ("Transfer-Encoding: chunked\r\n", 411),
        ("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", 411),
        ("", 411),  # a POST with a body and no Content-Length
        ("X-Long: " + "a" * 70_000 + "\r\n", 431),
    ],
)
def test_hostile_framing_is_an_aws_shaped_4xx_and_the_server_carries_on(
    serve: Callable[..., EmulatorServer], headers: str, status: int
) -> None:
    server = serve()
    response, body, closed = exchange(server, f"{LIST}{headers}\r\n{{}}".encode())
    assert response.status == status
    assert response.getheader("x-amzn-ErrorType") == "ClientException"
    assert body["message"]
    assert closed
    assert answered(server)


def test_a_huge_declared_body_is_refused_before_it_is_sent(
    serve: Callable[..., EmulatorServer],
) -> None:
    server = serve()
    response, body, _ = exchange(server, f"{LIST}Content-Length: {10**12}\r\n\r\n".encode())
    assert response.status == 413
    assert "exceeds" in body["message"]


def test_a_body_at_the_limit_is_read_whole(serve: Callable[..., EmulatorServer]) -> None:
    server = serve()
    body = b"{}".ljust(MAX_BODY)  # JSON may carry trailing whitespace
    response, members, closed = exchange(
        server, f"{LIST}Content-Length: {len(body)}\r\n\r\n".encode() + body
    )
    assert response.status == 200
    assert members == {"schedulingPolicies": []}
    assert not closed


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.1:8765", None, 200),
        ("localhost", None, 200),
        ("LOCALHOST.:8765", None, 200),
        ("[::1]:8765", None, 200),
        ("127.0.0.2", None, 200),
        ("localhost", "http://localhost:3000", 200),
        ("evil.example", None, 403),
        ("evil.example:8765", None, 403),
        ("127.0.0.1.evil.example", None, 403),
        ("10.0.0.1", None, 403),
        (None, None, 403),
        ("127.0.0.1:8765", "http://evil.example", 403),
        ("127.0.0.1:8765", "null", 403),
    ],
)
def test_only_loopback_host_and_origin_names_are_answered(
    serve: Callable[..., EmulatorServer], host: str | None, origin: str | None, status: int
) -> None:
    server = serve()
    lines = ["POST /v1/listschedulingpolicies HTTP/1.1", "Content-Length: 2"]
    lines += [f"Host: {host}"] if host is not None else []
    lines += [f"Origin: {origin}"] if origin is not None else []
    response, body, _ = exchange(server, ("\r\n".join(lines) + "\r\n\r\n{}").encode())
    assert response.status == status
    if status == 403:
        assert response.getheader("x-amzn-ErrorType") == "AccessDeniedException"
        assert "loopback" in body["message"]
    else:
        assert body == {"schedulingPolicies": []}


def test_a_non_loopback_listener_answers_any_host(serve: Callable[..., EmulatorServer]) -> None:
    assert not is_loopback_name("0.0.0.0")  # so `--host 0.0.0.0` turns the check off
    server = serve(check_host=False)
    request = b"POST /v1/listschedulingpolicies HTTP/1.1\r\nHost: box.lan\r\nContent-Length: 2"
    response, body, _ = exchange(server, request + b"\r\n\r\n{}")
    assert response.status == 200
    assert body == {"schedulingPolicies": []}


def test_a_keep_alive_client_reuses_one_connection(serve: Callable[..., EmulatorServer]) -> None:
    server = serve()
    batch = http_client(server.server_url)
    try:
        for _ in range(20):
            batch.list_scheduling_policies()
    finally:
        batch.close()
    assert server.accepted == 1


def read_response(reader: Any) -> tuple[int, Any]:
    """Status and JSON body of the next response on ``reader`` (shared by pipelined ones)."""
    status = int(reader.readline().split()[1])
    length = 0
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, json.loads(reader.read(length))


def test_pipelined_requests_are_answered_in_order(serve: Callable[..., EmulatorServer]) -> None:
    server = serve()
    one = f"{LIST}Content-Length: 2\r\n\r\n{{}}".encode()
    create = (
        b"POST /v1/createschedulingpolicy HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 12\r\n"
        b'\r\n{"name":"p"}'
    )
    with connect(server) as sock, sock.makefile("rb") as reader:
        sock.sendall(create + one)
        created = read_response(reader)
        listed = read_response(reader)
    assert created[0] == listed[0] == 200
    assert created[1]["name"] == "p"
    assert [p["arn"] for p in listed[1]["schedulingPolicies"]] == [created[1]["arn"]]


def test_expect_100_continue_gets_the_go_ahead(serve: Callable[..., EmulatorServer]) -> None:
    server = serve()
    with connect(server) as sock:
        sock.sendall(f"{LIST}Content-Length: 2\r\nExpect: 100-continue\r\n\r\n".encode())
        assert sock.recv(64) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(b"{}")
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 200


def test_http_1_0_closes_after_the_answer(serve: Callable[..., EmulatorServer]) -> None:
    server = serve()
    request = b"POST /v1/listschedulingpolicies HTTP/1.0\r\nHost: localhost\r\nContent-Length: 2"
    response, _, closed = exchange(server, request + b"\r\n\r\n{}")
    assert response.status == 200
    assert closed


def poll(condition: Callable[[], bool], tries: int = 200) -> bool:
    for _ in range(tries):
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_many_idle_connections_hold_no_worker(serve: Callable[..., EmulatorServer]) -> None:
    server = serve(workers=2)
    idle = [connect(server) for _ in range(200)]
    try:
        assert poll(lambda: server.connections == 200)
        assert answered(server)
    finally:
        for sock in idle:
            sock.close()


def test_idle_connections_are_closed_after_the_idle_timeout(
    serve: Callable[..., EmulatorServer],
) -> None:
    server = serve(idle_timeout=0.2)
    idle = [connect(server) for _ in range(20)]
    try:
        assert poll(lambda: server.accepted == 20)
        assert poll(lambda: server.connections == 0)
        assert all(sock.recv(1) == b"" for sock in idle)  # closed by the server
    finally:
        for sock in idle:
            sock.close()


def test_a_half_sent_request_times_out_with_408(serve: Callable[..., EmulatorServer]) -> None:
    server = serve(request_timeout=0.2)
    with connect(server) as sock:
        sock.sendall(LIST.encode())  # the headers never end
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 408
        assert sock.recv(1) == b""


def test_connections_over_the_cap_evict_the_longest_idle(
    serve: Callable[..., EmulatorServer],
) -> None:
    server = serve(max_connections=10)
    idle = [connect(server) for _ in range(30)]
    try:
        assert poll(lambda: server.accepted == 30)
        assert server.connections <= 10
        assert answered(server)
    finally:
        for sock in idle:
            sock.close()


def reset_on_close(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.slow
def test_clients_that_vanish_mid_request_leave_no_trace_on_stderr(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    server = Served(tmp_path / "s.db", stderr=log)
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    address = (host, int(port))
    try:
        for cut in (10, len(LIST), len(LIST) + 30):  # in the request line, headers, body
            sock = socket.create_connection(address, timeout=10)
            sock.sendall(f"{LIST}Content-Length: 100\r\n\r\n{{}}".encode()[:cut])
            reset_on_close(sock)
        for _ in range(50):  # a whole request, then gone before the answer (RST)
            sock = socket.create_connection(address, timeout=10)
            sock.sendall(f"{LIST}Content-Length: 2\r\n\r\n{{}}".encode())
            reset_on_close(sock)
        batch = http_client(server.url)
        try:
            assert batch.list_scheduling_policies()["schedulingPolicies"] == []
        finally:
            batch.close()
    finally:
        server.close()
    assert log.read_text() == ""


def quotactl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quotactl", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_a_port_outside_0_65535_is_a_usage_error(tmp_path: Path, port: str) -> None:
    done = quotactl("--state", str(tmp_path / "s.db"), "local", "serve", "--port", port)
    assert done.returncode == 64
    assert "--port" in done.stderr


def test_a_port_in_use_is_a_coded_error(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        done = quotactl("--state", str(tmp_path / "s.db"), "local", "serve", "--port", port)
    assert done.returncode == 1
    assert "error[port-in-use]" in done.stderr
    assert "--port 0" in done.stderr


@pytest.mark.slow
def test_the_aws_cli_is_answered_through_the_loopback_check(tmp_path: Path) -> None:
    aws = shutil.which("aws")
    if aws is None:
        pytest.skip("the AWS CLI is not installed")
    server = Served(tmp_path / "s.db")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
    try:
        done = subprocess.run(
            [
                aws,
                "--endpoint-url",
                server.url,
                "--region",
                "us-east-1",
                "batch",
                "list-scheduling-policies",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={**env, "HOME": str(tmp_path)},
            check=False,
        )
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"schedulingPolicies": []}
