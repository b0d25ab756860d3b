"""The markdown of ``simulate --compare`` and ``tune`` carries a Mermaid chart that Mermaid
itself draws.

The chart is rendered with the mermaid CLI (``mmdc``, from npm) on Debian's Chromium, as
GitHub would draw it: a chart Mermaid cannot parse fails to render, and a drawn one has a bar
per share. The PNG is kept with the other screenshots.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest

from quotactl.render.mermaid import xychart
from tests.conftest import REPO_ROOT
from tests.render.browser import CHROMIUM, keep
from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

pytestmark = pytest.mark.slow
MMDC = shutil.which("mmdc")


def render(chart: str, tmp_path: Path, out: str) -> subprocess.CompletedProcess[str]:
    if MMDC is None or CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("mmdc or chromium is missing (.ci/run installs both)")
        pytest.skip("mmdc (npm @mermaid-js/mermaid-cli) or chromium is not installed")
    source = tmp_path / "chart.mmd"
    source.write_text(chart)
    config = tmp_path / "puppeteer.json"
    config.write_text(json.dumps({"args": ["--no-sandbox", "--disable-gpu"]}))
    env = {**os.environ, "PUPPETEER_EXECUTABLE_PATH": CHROMIUM, "PUPPETEER_SKIP_DOWNLOAD": "1"}
    return subprocess.run(
        [MMDC, "-p", str(config), "-i", str(source), "-o", str(tmp_path / out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )


def test_the_comparison_markdown_chart_renders_with_a_bar_per_share(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    demo = str(REPO_ROOT / "configs" / "demo")
    trace = tmp_path / "trace.csv"
    assert cli("trace", "generate", demo, "--jobs", "400", "--out", str(trace)).exit_code == 0
    markdown = cli(
        "simulate", demo, "--trace", str(trace), "--baseline", "reserve", "-o", "markdown"
    )
    assert markdown.exit_code == 0, markdown.stderr
    block = re.search(r"```mermaid\n(.*?)```", markdown.stdout, re.S)
    assert block is not None
    chart = block.group(1)
    assert chart.startswith("xychart-beta\n")
    drawn = render(chart, tmp_path, "chart.svg")
    assert drawn.returncode == 0, drawn.stderr
    svg = (tmp_path / "chart.svg").read_text()
    assert "p95 wait per share" in svg
    bars = re.search(r'<g class="bar-plot-0">(.*?)</g>', svg, re.S)
    assert bars is not None
    assert bars.group(1).count("<rect") == 4  # nlp, ranking, research, vision-experiments
    assert 'class="line-plot-1"' in svg
    picture = render(chart, tmp_path, "chart.png")
    assert picture.returncode == 0, picture.stderr
    keep("mermaid-p95-waits.png", (tmp_path / "chart.png").read_bytes(), tmp_path)


def test_a_chart_mermaid_cannot_parse_does_not_render(tmp_path: Path) -> None:
    broken = "\n".join(xychart("t", ["a", "b"], "y", [1.0, 2.0])[1:-1]).replace("]", "", 1)
    drawn = render(broken, tmp_path, "broken.svg")
    assert drawn.returncode != 0


def test_the_tune_markdown_chart_renders_with_a_bar_per_share(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    """tune's PR comment carries the best change's chart: p95 waits before and after."""
    configs, trace = write_config(tmp_path), write_trace(tmp_path / "trace.csv")
    markdown = cli(
        "tune", str(configs), "--trace", str(trace), "--budget", "20", "--workers", "1",
        "-o", "markdown",
    )  # fmt: skip
    assert markdown.exit_code == 0, markdown.stderr
    block = re.search(r"```mermaid\n(.*?)```", markdown.stdout, re.S)
    assert block is not None
    assert 'x-axis ["research", "nlp"]' in block.group(1)
    drawn = render(block.group(1), tmp_path, "tune.svg")
    assert drawn.returncode == 0, drawn.stderr
    bars = re.search(r'<g class="bar-plot-0">(.*?)</g>', (tmp_path / "tune.svg").read_text(), re.S)
    assert bars is not None
    assert bars.group(1).count("<rect") == 2
