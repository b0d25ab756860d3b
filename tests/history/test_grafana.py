"""The Grafana dashboard in configs/grafana/ is a dashboard of per-team panels whose every
query names series that ``quotactl status -o openmetrics`` prints."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DASHBOARD = REPO_ROOT / "configs" / "grafana" / "quotactl-dashboard.json"
SERIES = re.compile(r"\b(quotactl_[a-z_]+)")


def test_every_query_names_a_series_the_exporter_prints(
    cli: Cli, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("-q", "apply", str(REPO_ROOT / "configs" / "demo"), "--auto-approve").exit_code == 0
    text = cli("-q", "status", "-o", "openmetrics").stdout
    assert text.endswith("# EOF\n")
    printed = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line[:1] != "#"}
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    named = {name for q in queries for name in SERIES.findall(q)}
    assert named, "no query names a quotactl series"
    assert named <= printed, named - printed
    titles = " ".join(p["title"] for p in dashboard["panels"]).lower()
    for panel in ("own and borrowed", "lent", "queued", "oldest wait", "preemptions"):
        assert panel in titles
    rows = [p for p in dashboard["panels"] if p["type"] == "row"]
    assert rows[0]["repeat"] == "team"  # one row of panels per team
