"""The HTTP way in: ``local serve`` answers AWS's wire format on a loopback port, so the AWS
CLI, the SageMaker SDK or any boto3 user reaches the emulator with
``AWS_ENDPOINT_URL_BATCH=http://127.0.0.1:8765``. Same handlers as in-process."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quotactl.emulator.service import Emulator

MAX_BODY = 1024 * 1024


class _BatchRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as botocore's connection pool expects
    server: EmulatorServer

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.send_error(413, "request body too large")
            return
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        response = self.server.emulator.handle(
            self.command, path, query, dict(self.headers.items()), body
        )
        self.send_response(response.status)
        for key, value in response.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    do_GET = do_POST = do_DELETE = do_PUT = _answer

    def log_message(self, format: str, *args: Any) -> None:
        return None  # quiet: a request log on stderr would fill pipes nobody reads


class EmulatorServer(ThreadingHTTPServer):
    """A threading HTTP server bound to one Emulator; ``server_url`` is what clients use."""

    daemon_threads = True

    def __init__(self, emulator: Emulator, host: str = "127.0.0.1", port: int = 8765) -> None:
        self.emulator = emulator
        super().__init__((host, port), _BatchRequestHandler)

    @property
    def server_url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"
