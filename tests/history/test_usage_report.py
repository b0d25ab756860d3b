"""``usage --report FILE.html`` and usage's markdown chart, on the scripted scenario: the page
holds the window's tables and, per day, the p95 wait of each share and what each share used
and lent; it opens in headless Chromium with every chart drawn; stdout is what it is without
``--report``. The markdown ends with a Mermaid chart of p95 waits: the window and the last day.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from quotactl.core.history.ledger import iso
from tests.history.test_scenario import played
from tests.render.browser import Browser, browser, keep

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult
    from tests.history.scenario import Scenario

    Cli = Callable[..., CliResult]

__all__ = ["browser", "played"]


def window(scenario: Scenario) -> tuple[str, ...]:
    return ("--from", iso(scenario.at(0)), "--to", iso(scenario.at(8)), "--grace", "0")


@pytest.mark.slow
def test_the_usage_report_draws_each_day_and_opens_in_a_browser(
    played: Scenario, cli: Cli, browser: Browser, tmp_path: Path
) -> None:
    args = ("usage", "stack.yaml", "--history", "ledger.csv", *window(played), "-o", "json")
    assert cli("history", "--out", "ledger.csv", "--since", "9h").exit_code == 0
    plain = cli(*args)
    page = tmp_path / "usage.html"
    result = cli(*args, "--report", str(page))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == plain.stdout  # the report's days are not added to stdout
    text = page.read_text()
    assert "Capacity (instance-hours)" in text
    assert "p95 wait per day" in text
    assert "a/ml.p5.48xlarge: instances in use per day (average)" in text
    seen = browser.open(page)
    keep("report-usage.png", seen.screenshot, tmp_path)
    assert seen.errors == []
    assert seen.charts
    assert [c["title"] for c in seen.charts if c["marks"] == 0] == []
    assert [(c["title"], c["cut"]) for c in seen.charts if c["cut"]] == []
    assert all(c["alt"] for c in seen.charts)


def test_the_usage_markdown_ends_with_a_chart_of_p95_waits(played: Scenario, cli: Cli) -> None:
    assert cli("history", "--out", "ledger.csv", "--since", "9h").exit_code == 0
    args = ("usage", "stack.yaml", "--history", "ledger.csv", *window(played), "-o", "markdown")
    result = cli(*args, "--every", "day")
    assert result.exit_code == 0, result.stderr
    chart = re.search(r"```mermaid\n(.*?)```", result.stdout, re.S)
    assert chart is not None
    assert chart.group(1).startswith("xychart-beta\n")
    assert "the window (bars), the last day (line)" in chart.group(1)
    assert "bar [" in chart.group(1)
    assert "line [" in chart.group(1)
