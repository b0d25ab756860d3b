"""The HTTP way in: ``local serve`` answers AWS's wire format on a loopback port, so the AWS
CLI, the SageMaker SDK or any boto3 user reaches the emulator with
``AWS_ENDPOINT_URL_BATCH=http://127.0.0.1:8765``. Same handlers as in-process.

One I/O thread owns every socket (a selector): it accepts, reads, frames requests
(``http1``) and parks idle keep-alive connections, closing them after ``idle_timeout``; a
bounded pool of ``workers`` threads answers complete requests, one write per response. An
idle connection therefore costs a file descriptor, never a thread, and a slow or hostile
client holds nothing beyond its own buffer (bounded by the body and header limits).
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.emulator.wire import http1, sts
from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from quotactl.emulator.service import Emulator

BACKLOG = 1024
"""The listen backlog (the kernel caps it at ``net.core.somaxconn``)."""
_RECV = 64 * 1024
_LINGER = 2.0  # seconds to drain a client's unread bytes after an error (no RST)


@dataclass(eq=False)
class _Connection:
    sock: socket.socket
    last: float
    parser: http1.Parser = field(default_factory=http1.Parser)
    started: float | None = None  # when the request being read began
    closing: float | None = None  # lingering after an error until then
    keep_alive: bool = True
    broken: bool = False


_LOOPBACK_FOR_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1"}
"""Addresses that mean "every interface" when listening, and the loopback a client uses."""


class EmulatorServer:
    """An HTTP/1.1 server bound to one Emulator; ``server_url`` is what clients use.

    ``check_host``: answer only requests whose Host (and Origin, if sent) is a loopback
    name; on by default when ``host`` is a loopback address.
    """

    def __init__(
        self,
        emulator: Emulator,
        host: str = "127.0.0.1",
        port: int = 8765,
        *,
        workers: int = 16,
        idle_timeout: float = 60.0,
        request_timeout: float = 10.0,
        max_connections: int = 512,
        check_host: bool | None = None,
    ) -> None:
        self.emulator = emulator
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.check_host = http1.is_loopback_name(host) if check_host is None else check_host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.create_server((host, port), family=family, backlog=BACKLOG)
        self.socket.setblocking(False)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="quotactl-serve")
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        for end in (self._wake_r, self._wake_w):
            end.setblocking(False)
        self._returned: list[_Connection] = []
        self._lock = threading.Lock()
        self._connections: set[_Connection] = set()
        self._stopping = threading.Event()
        self._closed = False
        self.accepted = 0  # connections so far (keep-alive clients reuse theirs)

    @property
    def server_address(self) -> tuple[str, int]:
        name = self.socket.getsockname()
        return str(name[0]), int(name[1])

    @property
    def server_url(self) -> str:
        """The URL a client on this machine uses: for a server on every interface (0.0.0.0,
        ::), the loopback address, since no client can connect to 0.0.0.0 as such."""
        host, port = self.server_address
        host = _LOOPBACK_FOR_ANY.get(host, host)
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def connections(self) -> int:
        """Open client connections (idle, reading or being answered)."""
        return len(self._connections)

    # -- the I/O thread ---------------------------------------------------------------------
    def serve_forever(self, poll_interval: float = 0.2) -> None:
        """Serve until ``shutdown()`` (or an exception such as KeyboardInterrupt)."""
        sel = self._selector
        sel.register(self.socket, selectors.EVENT_READ, None)
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        swept = time.monotonic()
        try:
            while not self._stopping.is_set():
                for key, _ in sel.select(poll_interval):
                    if key.data is None:
                        self._accept()
                    elif key.data == "wake":
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(4096)
                    else:
                        self._readable(key.data)
                self._take_returned()
                now = time.monotonic()
                if now - swept >= min(poll_interval, 0.5):
                    self._sweep(now)
                    swept = now
        finally:
            for sock in (self.socket, self._wake_r):
                with contextlib.suppress(KeyError, ValueError):
                    sel.unregister(sock)

    def shutdown(self) -> None:
        """Make ``serve_forever`` return (callable from any thread)."""
        self._stopping.set()
        self._wake()

    def server_close(self) -> None:
        """Stop listening, let requests in flight finish, close every connection."""
        if self._closed:
            return
        self._closed = True
        self.socket.close()
        self._pool.shutdown(wait=True, cancel_futures=True)
        for conn in list(self._connections):
            self._close(conn)
        for closing in (self._selector, self._wake_r, self._wake_w):
            closing.close()

    def _accept(self) -> None:
        for _ in range(64):  # several per wake-up, never starving the other sockets
            try:
                sock, _ = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of file descriptors: free one, the backlog keeps the rest
                if not self._evict_idle():
                    time.sleep(0.01)  # never spin on a listener that stays readable
                return
            if len(self._connections) >= self.max_connections and not self._evict_idle():
                sock.close()
                continue
            self.accepted += 1
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Connection(sock, time.monotonic())
            self._connections.add(conn)
            self._selector.register(sock, selectors.EVENT_READ, conn)

    def _evict_idle(self) -> bool:
        """Close the longest-idle parked connection to make room for a new one."""
        idle = [c for c in self._connections if self._parked(c) and not c.parser.pending]
        if not idle:
            return False
        self._close(min(idle, key=lambda c: c.last))
        return True

    def _parked(self, conn: _Connection) -> bool:
        return conn.sock in self._selector.get_map()

    def _readable(self, conn: _Connection) -> None:
        try:
            data = conn.sock.recv(_RECV)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        if conn.closing is not None:
            return  # draining what the client still sends after an error
        now = time.monotonic()
        conn.last = now
        if conn.started is None:
            conn.started = now
        conn.parser.feed(data)
        self._next(conn)

    def _next(self, conn: _Connection) -> None:
        """Dispatch the connection's next complete request, or wait for more bytes."""
        try:
            request = conn.parser.next_request()
        except http1.FramingError as exc:
            self._fail(conn, http1.error_bytes(exc.status, exc.code, exc.message))
            return
        if request is None:
            if conn.parser.wants_continue():
                self._send_now(conn, b"HTTP/1.1 100 Continue\r\n\r\n")
            if not conn.parser.pending:
                conn.started = None
            return
        conn.started = None
        conn.keep_alive = request.keep_alive
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn.sock)
        self._pool.submit(self._answer, conn, request)

    def _take_returned(self) -> None:
        with self._lock:
            returned, self._returned = self._returned, []
        for conn in returned:
            if conn.broken or not conn.keep_alive or self._closed:
                self._close(conn)
                continue
            conn.last = time.monotonic()
            try:
                self._selector.register(conn.sock, selectors.EVENT_READ, conn)
            except (KeyError, ValueError, OSError):
                self._close(conn)
                continue
            if conn.parser.pending:  # a pipelined request already read
                conn.started = conn.last
                self._next(conn)

    def _sweep(self, now: float) -> None:
        for conn in list(self._connections):
            if conn.closing is not None:
                if now >= conn.closing:
                    self._close(conn)
            elif not self._parked(conn):
                continue
            elif conn.started is not None and now - conn.started > self.request_timeout:
                message = f"the request was not complete within {self.request_timeout:g}s"
                self._fail(conn, http1.error_bytes(408, "RequestTimeoutException", message))
            elif conn.started is None and now - conn.last > self.idle_timeout:
                self._close(conn)

    def _fail(self, conn: _Connection, response: bytes) -> None:
        """Send an error, then linger (discarding input) so the client reads it, not a RST."""
        self._send_now(conn, response)
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_WR)
        conn.closing = time.monotonic() + _LINGER
        if not self._parked(conn):
            self._close(conn)

    @staticmethod
    def _send_now(conn: _Connection, data: bytes) -> None:
        with contextlib.suppress(OSError):  # small, into an empty send buffer: never blocks
            conn.sock.send(data)

    def _close(self, conn: _Connection) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn.sock)
        self._connections.discard(conn)
        with contextlib.suppress(OSError):
            conn.sock.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # -- the worker threads -----------------------------------------------------------------
    def _answer(self, conn: _Connection, request: http1.Request) -> None:
        try:
            data = self._respond(request)
            conn.sock.settimeout(self.request_timeout)
            conn.sock.sendall(data)
            conn.sock.setblocking(False)
        except Exception:  # a client gone mid-answer: drop the connection, quietly
            conn.broken = True
        with self._lock:
            self._returned.append(conn)
        self._wake()

    def _respond(self, request: http1.Request) -> bytes:
        keep = request.keep_alive
        if self.check_host:
            why = http1.refusal(request)
            if why is not None:
                message = f"{why}; `quotactl local serve` answers loopback clients only"
                return http1.error_bytes(403, "AccessDeniedException", message, keep_alive=keep)
        path, _, query = request.target.partition("?")
        if sts.is_sts(request.method, path, request.body):  # the aws backend's account guard
            response = sts.answer(request.body, self.emulator.account_id)
            return http1.response_bytes(
                response.status, response.headers, response.body, keep_alive=keep
            )
        try:
            response = self.emulator.handle(
                request.method, path, query, request.headers, request.body
            )
        except QuotactlError as exc:  # the state file failed: a retryable 500 with its reason
            message = f"{exc.message} ({exc.hint})" if exc.hint else exc.message
            return http1.error_bytes(500, "ServerException", message, keep_alive=keep)
        return http1.response_bytes(
            response.status, response.headers, response.body, keep_alive=keep
        )
