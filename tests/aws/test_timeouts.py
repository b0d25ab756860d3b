"""Bounded waiting: every AWS call has connect/read timeouts and one retry budget.

Each test points quotactl at a misbehaving endpoint on 127.0.0.1 and asserts, by counting the
requests the endpoint received, that quotactl gave up after exactly ``--max-attempts`` tries
of each call, with an error naming the endpoint (never by measuring wall time).
"""

from __future__ import annotations

import shutil
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


class SilentServer:
    """Accepts connections and reads requests, and never answers one."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.requests: Counter[str] = Counter()
        self.connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            try:
                chunk = conn.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
        path = data.split(b" ", 2)[1].decode()
        with self._lock:
            self.requests[path] += 1

    def close(self) -> None:
        self._closed = True
        self.sock.close()
        for conn in self.connections:
            conn.close()


class ProxyServer(ThreadingHTTPServer):
    """The emulator over HTTP, except that ``failing`` operations always answer HTTP 500."""

    def __init__(self, emulator: Emulator, failing: Callable[[str], bool]) -> None:
        self.emulator, self.failing = emulator, failing
        self.requests: Counter[str] = Counter()
        self.count_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _ProxyHandler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ProxyHandler(BaseHTTPRequestHandler):
    server: ProxyServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path, _, query = self.path.partition("?")
        with self.server.count_lock:
            self.server.requests[path] += 1
        if self.server.failing(path):
            status, payload = 500, b'{"message": "internal failure"}'
            headers = {"x-amzn-ErrorType": "ServerException"}
        else:
            answer = self.server.emulator.handle("POST", path, query, self.headers, body)
            status, payload, headers = answer.status, answer.body, answer.headers
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_PUT = do_DELETE = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AWS_ENDPOINT_URL_BATCH", raising=False)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    return tmp_path / "demo"


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def serve(tmp_path: Path, failing: Callable[[str], bool]) -> tuple[ProxyServer, Emulator]:
    emulator = Emulator(tmp_path / "proxied.db", timing=TEST_TIMING)
    server = ProxyServer(emulator, failing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, emulator


def test_an_endpoint_that_never_answers_fails_after_max_attempts_read_timeouts(
    demo: Path, silent: SilentServer, cli: Cli
) -> None:
    result = cli(
        "--endpoint-url", silent.url, "--read-timeout", "0.2", "--max-attempts", "3",
        "plan", str(demo),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "error[aws-timeout]" in result.stderr
    assert f"{silent.url}/v1/" in result.stderr  # the endpoint, named
    assert "did not answer within 0.2s (3 attempts)" in result.stderr
    assert silent.requests, "the endpoint was asked"
    # The call that failed was tried 3 times; reads running beside it (plan reads in
    # parallel) stop when it fails, never going past 3.
    assert max(silent.requests.values()) == 3, silent.requests


def test_the_timeout_and_attempts_come_from_the_environment_too(
    demo: Path, silent: SilentServer, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUOTACTL_READ_TIMEOUT", "0.2")
    monkeypatch.setenv("QUOTACTL_MAX_ATTEMPTS", "2")
    result = cli("--endpoint-url", silent.url, "plan", str(demo))
    assert result.exit_code == 1
    assert "(2 attempts)" in result.stderr
    assert max(silent.requests.values()) == 2, silent.requests


def test_an_endpoint_that_always_answers_500_fails_after_max_attempts(
    demo: Path, tmp_path: Path, cli: Cli
) -> None:
    server, emulator = serve(tmp_path, lambda path: True)
    try:
        result = cli("--endpoint-url", server.url, "--max-attempts", "2", "plan", str(demo))
    finally:
        server.shutdown()
        server.server_close()
        emulator.close()
    assert result.exit_code == 1
    assert f"{server.url} answered HTTP 500 to 2 attempts" in result.stderr
    assert max(server.requests.values()) == 2, server.requests  # parallel reads: none past 2


def test_a_change_failing_with_500_costs_one_retry_budget_not_two(
    demo: Path, tmp_path: Path, cli: Cli
) -> None:
    """Apply does not retry on top of the client: each share's create is sent 3 times."""
    server, emulator = serve(tmp_path, lambda path: path.lower().endswith("/createquotashare"))
    try:
        result = cli(
            "--endpoint-url", server.url, "--max-attempts", "3",
            "apply", str(demo), "--auto-approve",
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
        emulator.close()
    assert result.exit_code == 1
    assert "error[apply-failed]: 4 changes failed" in result.stderr
    creates = [n for path, n in server.requests.items() if path.lower().endswith("quotashare")]
    assert creates == [4 * 3]  # four shares, three attempts each
    assert "internal failure" in result.stdout + result.stderr


@pytest.mark.parametrize("value", ["0", "-1s", "soon"])
def test_a_bad_timeout_is_a_usage_error(demo: Path, cli: Cli, value: str) -> None:
    result = cli("--read-timeout", value, "plan", str(demo))
    assert result.exit_code == 64
    assert "error[usage]: --read-timeout" in result.stderr
