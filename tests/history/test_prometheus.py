"""A real Prometheus server (Debian's ``prometheus``) scrapes ``quotactl metrics serve``: a
PromQL query over its HTTP API returns the borrowed figure ``status -o json`` reports, and
sees it change after ``local advance``; a budget the governor tagged on a share is scraped as
``quotactl_budget_used_ratio``.

Skipped where Prometheus is not installed, except under CI, which installs it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

PROMETHEUS = shutil.which("prometheus")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        PROMETHEUS is None and not os.environ.get("CI"),
        reason="Prometheus is not installed (CI installs Debian's prometheus)",
    ),
]
REPO = Path(__file__).resolve().parents[2]
QUERY = 'quotactl_share_borrowed{share="nlp",instance_type="ml.p5.48xlarge"}'
WAIT = 90.0


def quotactl(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "quotactl", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def until(what: str, check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found is not None:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """``metrics serve`` on a free loopback port over the demo platform, with nlp borrowing;
    yields Prometheus's port."""
    monkeypatch.chdir(tmp_path)
    quotactl("apply", str(REPO / "configs" / "demo"), "--auto-approve")
    quotactl("submit", str(REPO / "configs" / "jobs" / "fine-tune.yaml"), "--count", "6")
    quotactl("local", "advance", "10m")
    tag_budget(tmp_path / ".quotactl" / "emulator.db")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    exporter = subprocess.Popen(
        [sys.executable, "-m", "quotactl", "metrics", "serve", "--port", "0", "--interval", "1s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert exporter.stdout is not None
        line = exporter.stdout.readline()
        assert line.startswith("Serving Prometheus metrics at http://127.0.0.1:"), line
        target = line.split("http://", 1)[1].split("/", 1)[0]
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
            "scrape_configs:\n"
            "  - job_name: quotactl\n"
            f"    static_configs: [{{targets: ['{target}']}}]\n"
        )
        port = free_port()
        server = subprocess.Popen(
            [
                PROMETHEUS or "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield port
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        exporter.terminate()
        exporter.wait(timeout=30)
        if exporter.stdout is not None:
            exporter.stdout.close()


def tag_budget(state: Path) -> None:
    """The governor's budget tag on nlp's share, as a cycle sets it (1520 of 2000 h)."""
    from quotactl.aws.session import Target, client, make_session

    target = Target(backend="local", state_path=state)  # the timing the CLI runs it with
    batch = client(target, session=make_session(target))
    (share,) = [
        s
        for s in batch.list_quota_shares(jobQueue="training")["quotaShares"]
        if s["quotaShareName"] == "nlp"
    ]
    batch.tag_resource(
        resourceArn=share["quotaShareArn"],
        tags={"quotactl:budget": "soft resets=2099-01-01T00:00:00Z ml.p5.48xlarge=1520/2000"},
    )


def promql(port: int, query: str) -> float | None:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            answer = json.load(response)
    except OSError:
        return None  # not up yet
    results = answer["data"]["result"]
    return float(results[0]["value"][1]) if results else None


def status_borrowed() -> int:
    document = json.loads(quotactl("status", "-o", "json").stdout)
    shares = {s["name"]: s for q in document["queues"] for s in q["shares"]}
    rows = {r["instance_type"]: r for r in shares["nlp"]["capacity"]}
    return int(rows["ml.p5.48xlarge"]["borrowed"])


def test_prometheus_sees_the_borrowed_figure_status_reports(served: int) -> None:
    borrowed = status_borrowed()
    assert borrowed == 2  # nlp runs 6 one-instance jobs on a limit of 4
    assert until("the first scrape", lambda: promql(served, QUERY)) == borrowed
    assert until("a successful read", lambda: promql(served, "quotactl_up")) == 1
    quotactl("local", "advance", "7h")  # the jobs (6 h at most) have finished
    assert status_borrowed() == 0
    assert until("the new value", lambda: promql(served, f"{QUERY} == 0")) == 0


def test_prometheus_sees_a_teams_budget_ratio(served: int) -> None:
    query = 'quotactl_budget_used_ratio{team="nlp",instance_type="ml.p5.48xlarge"}'
    assert until("the budget ratio", lambda: promql(served, query)) == 0.76
    assert (
        until("the overdue count", lambda: promql(served, "quotactl_governor_overdue_restores"))
        == 0
    )
