"""``simulate --report FILE.html``: the page is written after the run, whole, with the report
on stdout unchanged; a path that cannot be written fails before the replay; the README's
20,000-job example gives a page under 500 KB."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

DEMO = str(REPO_ROOT / "configs" / "demo")


@pytest.fixture
def trace(cli: Callable[..., CliResult], tmp_path: Path) -> Path:
    path = tmp_path / "trace.csv"
    assert cli("trace", "generate", DEMO, "--jobs", "300", "--out", str(path)).exit_code == 0
    return path


def test_the_report_is_written_beside_the_usual_output(
    cli: Callable[..., CliResult], trace: Path, tmp_path: Path
) -> None:
    plain = cli("simulate", DEMO, "--trace", str(trace), "-o", "markdown")
    page = tmp_path / "what-if.html"
    with_report = cli(
        "simulate", DEMO, "--trace", str(trace), "-o", "markdown", "--report", str(page)
    )
    assert with_report.exit_code == 0, with_report.stderr
    assert with_report.stdout == plain.stdout
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in text
    assert text.count("<figure>") == text.count("<svg") == text.count('role="img"')
    assert "Jobs and waits (first start - submit)" in text  # the text report's table


def test_an_unwritable_report_path_fails_before_the_replay(
    cli: Callable[..., CliResult], trace: Path, tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "report.html"
    result = cli(
        "simulate", DEMO, "--trace", str(trace), "--baseline", "reserve", "--report", str(target)
    )
    assert result.exit_code != 0
    assert "error[io-error]" in result.stderr
    assert "directory" in result.stderr
    assert result.stdout == ""  # nothing was replayed or printed
    assert not target.parent.exists()


@pytest.mark.slow
def test_the_readme_example_report_is_under_500_kb(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    trace = tmp_path / "trace.csv"
    args = ("trace", "generate", DEMO, "--jobs", "20000", "--seed", "3", "--out", str(trace))
    assert cli(*args).exit_code == 0
    page = tmp_path / "report.html"
    result = cli(
        "simulate", DEMO, "--trace", str(trace), "--baseline", "reserve", "--report", str(page)
    )
    assert result.exit_code == 0, result.stderr
    assert page.stat().st_size < 500_000
