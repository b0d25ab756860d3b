"""The reports as a person sees them: each kind of report opened in headless Chromium.

``simulate --report`` of one configuration, ``--baseline reserve`` and ``--compare
OTHER_PATH``, and ``tune --report``: the page loads with no console error (its policy forbids
any fetch and any script, so an attempt would be one), every chart is drawn (its SVG has shapes
with an area), every legend name shows whole (within its chart, clear of its neighbours),
every chart has a text alternative, and a screenshot of the whole page is kept (in the test's
directory, and in ``$QUOTACTL_TEST_ARTIFACTS`` when set)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest

from quotactl.render.report.document import html
from quotactl.render.report.model import Chart, Kind, Report, Section, Series
from tests.conftest import REPO_ROOT
from tests.render.browser import Browser, Seen, browser, keep
from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

__all__ = ["browser"]

pytestmark = pytest.mark.slow
DEMO = str(REPO_ROOT / "configs" / "demo")


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from quotactl import api

    path = tmp_path_factory.mktemp("trace") / "trace.csv"
    api.generate_trace(api.load([DEMO]).desired, 1500, path, seed=3)
    return path


def proposal(tmp_path: Path) -> Path:
    """The demo with research reserving its capacity instead of lending it."""
    copy = tmp_path / "proposal"
    shutil.copytree(DEMO, copy)
    research = copy / "teams" / "research.yaml"
    research.write_text(research.read_text().replace("sharing: lend", "sharing: reserve"))
    return copy


@pytest.mark.parametrize("kind", ["one-config", "baseline", "compare"])
def test_each_kind_of_report_opens_offline_with_every_chart_drawn(
    kind: str,
    trace: Path,
    browser: Browser,
    cli: Callable[..., CliResult],
    tmp_path: Path,
) -> None:
    page = tmp_path / f"{kind}.html"
    extra = {
        "one-config": [],
        "baseline": ["--baseline", "reserve"],
        "compare": ["--compare", str(proposal(tmp_path))],
    }[kind]
    result = cli("simulate", DEMO, "--trace", str(trace), *extra, "--report", str(page))
    assert result.exit_code == 0, result.stderr
    assert f"report written to {page}" in result.stderr
    seen = browser.open(page)
    keep(f"report-{kind}.png", seen.screenshot, tmp_path)
    assert len(seen.charts) >= 4 + 4  # per queue: utilisation, lent, ...; per share: usage, waits
    _looks_whole(seen, page)


def test_the_tune_report_opens_offline_with_every_chart_drawn(
    browser: Browser, cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    """The search (each candidate's objective, the front) and the best change over time."""
    configs, trace = write_config(tmp_path), write_trace(tmp_path / "trace.csv")
    page = tmp_path / "tune.html"
    result = cli(
        "tune", str(configs), "--trace", str(trace), "--budget", "20", "--workers", "1",
        "--report", str(page),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    seen = browser.open(page)
    keep("report-tune.png", seen.screenshot, tmp_path)
    titles = [c["title"] for c in seen.charts]
    assert titles[:2] == [
        "worst-p95 of each candidate, in the order simulated",
        "The front: worst-p95 against work lost",
    ]
    assert "training: utilisation of claimed capacity over time" in titles
    assert "nlp: ml.p5.48xlarge in use over time (after)" in titles
    _looks_whole(seen, page)


def _looks_whole(seen: Seen, page: Path) -> None:
    """No console error, every chart drawn with its text alternative and its whole legend,
    nothing fetched or run."""
    assert seen.errors == []
    undrawn = [c["title"] for c in seen.charts if c["marks"] == 0]
    assert undrawn == []
    assert [(c["title"], c["cut"]) for c in seen.charts if c["cut"]] == []  # legends show whole
    assert all(c["alt"] for c in seen.charts)
    assert seen.screenshot.startswith(b"\x89PNG")
    text = page.read_text()
    assert "<script" not in text
    assert "http://" not in text.replace("http://www.w3.org/", "")
    assert "https://" not in text


def test_long_legend_names_show_whole(browser: Browser, tmp_path: Path) -> None:
    """However long a series' name, its legend takes as few columns as it needs to show it."""
    names = [f"{team}-experiments-with-a-long-name (ml.p5.48xlarge)" for team in "abcdef"]
    series = [Series(name, [float(i + j) for j in range(50)]) for i, name in enumerate(names)]
    chart = Chart("lent", Kind.LINES, (), series, "instances", "six lines", x=range(50))
    page = tmp_path / "legend.html"
    page.write_text(html(Report("legend", [], [Section("Queue q", charts=[chart])])))
    seen = browser.open(page)
    keep("report-long-legend.png", seen.screenshot, tmp_path)
    assert seen.errors == []
    assert seen.charts[0]["legend"] == names
    assert seen.charts[0]["cut"] == []
