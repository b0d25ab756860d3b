"""A real headless Chromium, driven over its DevTools protocol, to look at a page as a person.

``Browser.open(path)`` loads a local file and returns what it saw: console messages and page
errors (a Content-Security-Policy violation is one), the marks of every chart (SVG shapes with
an area on screen) and a full-page screenshot. Debian's ``chromium`` package is the browser;
the protocol runs over a websocket (``websocket-client``).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--window-size=1400,1000",
)
# Per chart: its shapes (pygal draws a series as <path>, a bar as <rect>, a dot as <circle>) with
# a drawn area, and the legend names that do not show whole (past the SVG's edge, or over their
# neighbour's).
_MARKS = """
Array.from(document.querySelectorAll('figure')).map(f => {
  const shapes = Array.from(
    f.querySelectorAll('svg .plot .series path, svg .plot .series rect, svg .plot .series circle'));
  const drawn = shapes.filter(s => { const b = s.getBoundingClientRect();
                                     return b.width > 0 || b.height > 0; });
  const svg = f.querySelector('svg').getBoundingClientRect();
  const names = Array.from(f.querySelectorAll('svg .legends .legend text'))
                     .map(t => ({text: t.textContent, box: t.getBoundingClientRect()}));
  const cut = names.filter(n => n.box.right > svg.right + 0.5 || n.box.bottom > svg.bottom + 0.5
    || names.some(o => o !== n && o.box.left > n.box.left && o.box.left < n.box.right
                       && Math.abs(o.box.top - n.box.top) < n.box.height / 2));
  return {title: f.querySelector('figcaption').textContent, marks: drawn.length,
          alt: f.querySelector('[role=img]').getAttribute('aria-label'),
          legend: names.map(n => n.text), cut: cut.map(n => n.text)};
})
"""


@dataclass(frozen=True)
class Seen:
    errors: list[str]  # console errors, page exceptions, log entries of level error
    charts: list[dict[str, Any]]  # per figure: title, marks, alt, legend, cut (legend names)
    screenshot: bytes  # PNG of the whole page


def need_chromium() -> str:
    """The browser, or a skip where it is absent and this is no CI run (CI installs it)."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs Debian's package)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return CHROMIUM


class Browser:
    """One Chromium process and its first page, over the DevTools protocol."""

    def __init__(self, executable: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="quotactl-chromium-")
        # stderr to a file: a pipe nobody reads would stall the browser once full
        self._log = Path(self._profile) / "stderr.log"
        with self._log.open("w") as log:
            self._process = subprocess.Popen(
                [
                    executable,
                    *FLAGS,
                    f"--user-data-dir={self._profile}",
                    "--remote-debugging-port=0",
                    "about:blank",
                ],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        self._ws = self._connect()
        self._id = 0

    def _connect(self) -> Any:
        import websocket

        deadline = time.monotonic() + 60
        port = None
        while port is None and time.monotonic() < deadline:
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", self._log.read_text())
            port = found.group(1) if found else None
            if port is None:
                if self._process.poll() is not None:
                    raise RuntimeError(f"chromium exited: {self._log.read_text()[-2000:]}")
                time.sleep(0.1)
        if port is None:
            raise RuntimeError("chromium did not say where it listens")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
            pages = [t for t in json.load(answer) if t["type"] == "page"]
        # No Origin header: Chromium refuses a DevTools connection from an origin it was not
        # told to allow (--remote-allow-origins), and websocket-client 1.9 sends one.
        return websocket.create_connection(
            pages[0]["webSocketDebuggerUrl"], timeout=60, suppress_origin=True
        )

    def _call(self, method: str, events: list[dict[str, Any]], **params: Any) -> dict[str, Any]:
        self._id += 1
        self._ws.send(json.dumps({"id": self._id, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == self._id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            events.append(message)

    def _wait_for(self, event: str, events: list[dict[str, Any]]) -> None:
        while not any(e.get("method") == event for e in events):
            events.append(json.loads(self._ws.recv()))

    def open(self, path: Path) -> Seen:
        events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log"):
            self._call(f"{domain}.enable", events)
        self._call("Page.navigate", events, url=path.resolve().as_uri())
        self._wait_for("Page.loadEventFired", events)
        found = self._call("Runtime.evaluate", events, expression=_MARKS, returnByValue=True)
        charts = found["result"]["value"]
        shot = self._call(
            "Page.captureScreenshot", events, format="png", captureBeyondViewport=True
        )
        return Seen(_errors(events), charts, base64.b64decode(shot["data"]))

    def close(self) -> None:
        self._ws.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)


def _errors(events: list[dict[str, Any]]) -> list[str]:
    errors = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a)) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            errors.append(str(params.get("exceptionDetails", {}).get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append(str(params["entry"].get("text")))
    return errors


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    opened = Browser(need_chromium())
    try:
        yield opened
    finally:
        opened.close()


def keep(name: str, png: bytes, tmp_path: Path) -> Path:
    """Save a screenshot in the test's directory, and in ``$QUOTACTL_TEST_ARTIFACTS`` if set."""
    shot = tmp_path / name
    shot.write_bytes(png)
    artifacts = os.environ.get("QUOTACTL_TEST_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / name)
    return shot
