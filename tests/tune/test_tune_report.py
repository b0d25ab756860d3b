"""``tune --report FILE.html``: the search drawn (every candidate's objective, the front) and the
best change before and after, as ``simulate --compare --report`` draws it; stdout is what it
is without ``--report``; the figures drawn are the search's; a path that cannot be written
fails before the search; with nothing better than the current configuration the page says so.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]


def _workload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    return write_config(tmp_path), write_trace(tmp_path / "trace.csv")


def test_the_report_draws_the_search_and_the_best_change(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs, trace = _workload(tmp_path, monkeypatch)
    args = ("tune", str(configs), "--trace", str(trace), "--budget", "20", "--workers", "1")
    plain = cli(*args, "-o", "json")
    page = tmp_path / "tune.html"
    found = cli(*args, "-o", "json", "--report", str(page))
    assert found.exit_code == 0, found.stderr
    assert found.stdout == plain.stdout
    assert f"report written to {page}" in found.stderr
    document = json.loads(found.stdout)
    best = document["best"]
    assert best is not None
    text = page.read_text()
    assert text.count("<figure>") == text.count("<svg") == text.count('role="img"')
    assert "worst-p95 of each candidate, in the order simulated" in text
    assert "The front: worst-p95 against work lost" in text
    assert f"Candidate {best} (the best: --out writes it)" in text
    # every candidate simulated is listed under the first chart, with its objective
    listed = re.search(r"<summary>Every candidate simulated</summary>(.*?)</details>", text, re.S)
    assert listed is not None
    assert listed.group(1).count("<tr>") == 1 + document["simulated"]  # with the header
    # the best change over time, before and after, as simulate --compare --report draws it
    assert "training: utilisation of claimed capacity over time" in text
    assert "nlp: ml.p5.48xlarge in use over time (after)" in text
    assert "nlp: distribution of waits (first start - submit)" in text
    # its table says what the search found: the p95 waits of the best's comparison
    shown = cli(*args)  # the text report prints the same table
    nlp = re.search(r"^\s*nlp\s+gains\s+(\S+ \S+ → \S+ \S+)", shown.stdout, re.M)
    assert nlp is not None
    assert f'<td>nlp</td><td>gains</td><td class="n">{nlp.group(1)}</td>' in text


def test_the_recorded_replay_is_the_search_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's charts come from the best and the current replayed once more with the
    recorder: their figures are the ones the search compared."""
    from quotactl import api
    from quotactl.core.tune import Settings
    from quotactl.render.compare import comparison_document

    configs, trace = _workload(tmp_path, monkeypatch)
    result = api.tune(api.load([configs]).desired, trace, Settings(budget=20), workers=1)
    assert result.best is not None
    searched = api.tuned_comparison(result, result.best, label="configs")
    recorded = api.tuned_recording(result, result.best, trace, label="configs")
    assert recorded.before.result.timeline is not None
    assert recorded.after.result.timeline is not None

    def figures(comparison: object) -> object:
        return comparison_document(comparison, trace="t")["comparison"]  # type: ignore[arg-type]

    assert figures(recorded) == figures(searched)


def test_an_unwritable_report_path_fails_before_the_search(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs, trace = _workload(tmp_path, monkeypatch)
    target = tmp_path / "missing" / "tune.html"
    result = cli("tune", str(configs), "--trace", str(trace), "--report", str(target))
    assert result.exit_code != 0
    assert "error[io-error]" in result.stderr
    assert result.stdout == ""  # nothing was searched or printed
    assert not target.parent.exists()


def test_with_nothing_better_the_page_says_to_keep_the_current_configuration(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs, trace = _workload(tmp_path, monkeypatch)
    page = tmp_path / "tune.html"
    found = cli("tune", str(configs), "--trace", str(trace), "--budget", "1", "--report", str(page))
    assert found.exit_code == 0, found.stderr
    text = page.read_text()
    assert "keep the current configuration" in text
    assert "Candidate " not in text  # no proposal, so no before and after
    assert text.count("<figure>") == 2  # the search: the candidates, the front
