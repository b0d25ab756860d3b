"""The worked example of docs/usage.md: its ledger and configuration, run through ``usage``,
give the figures its table and its sentences state (worked out by hand on the page)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.conftest import REPO_ROOT
from tests.test_docs_json import block_with

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

PAGE = REPO_ROOT / "docs" / "usage.md"
WINDOW = ("--from", "2026-11-30T22:00:00Z", "--to", "2026-12-01T06:00:00Z")


def table() -> dict[str, dict[str, float]]:
    """The worked example's table: share -> column -> figure."""
    lines = [line for line in PAGE.read_text().splitlines() if line.startswith("| ")]
    start = next(i for i, line in enumerate(lines) if line.startswith("| share | entitled"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 1 :]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] not in ("a", "b", "c"):
            break
        rows[cells[0]] = {h: float(c) for h, c in zip(header[1:], cells[1:], strict=True)}
    return rows


def run(cli: Cli, tmp_path: Path, *args: str) -> dict[str, Any]:
    stack = tmp_path / "stack.yaml"
    stack.write_text(block_with("usage.md", "platform: {name: history"))
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(block_with("usage.md", "job_id,attempt") + "\n")
    result = cli("usage", str(stack), "--history", str(ledger), *WINDOW, "-o", "json", *args)
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_the_worked_example_table_is_what_usage_reports(cli: Cli, tmp_path: Path) -> None:
    expected = table()
    assert sorted(expected) == ["a", "b", "c"]
    rows = {r["share"]: r for r in run(cli, tmp_path)["rows"]}
    for share, figures in expected.items():
        assert {k: rows[share][k] for k in figures} == figures, share
        assert rows[share]["guarantee_miss_hours"] == 0


def test_the_worked_example_sentences(cli: Cli, tmp_path: Path) -> None:
    daily = run(cli, tmp_path, "--every", "day")["periods"]
    first = {r["share"]: r for r in daily[0]["rows"]}
    second = {r["share"]: r for r in daily[1]["rows"]}
    keys = ("entitled", "used", "own", "borrowed")
    assert [first["a"][k] for k in keys] == [8, 6, 4, 2]
    assert [first["b"][k] for k in (*keys, "lent")] == [8, 4, 4, 0, 2]
    assert [second["a"][k] for k in keys] == [24, 28, 20, 8]
    assert [second["b"][k] for k in (*keys, "lent")] == [24, 6, 6, 0, 8]
    teams = {r["team"]: r for r in run(cli, tmp_path, "--by", "team")["rows"]}
    blue = teams["blue"]
    summed = ("entitled", "used", "lent", "idle", "reserved_unused")
    assert [blue[k] for k in summed] == [48, 10, 10, 22, 16]
    prices = tmp_path / "prices.yaml"
    prices.write_text("ml.p5.48xlarge: 98.5\n")
    priced = {r["share"]: r for r in run(cli, tmp_path, "--prices", str(prices))["rows"]}
    assert (priced["a"]["cost"], priced["a"]["cost_borrowed"]) == (3349.0, 985.0)
    assert priced["b"]["credit_lent"] == 985.0


def test_an_unknown_team_or_queue_is_not_found(cli: Cli, tmp_path: Path) -> None:
    run(cli, tmp_path)  # writes the example's files
    for option in ("--team", "--queue"):
        result = cli(
            "usage",
            str(tmp_path / "stack.yaml"),
            "--history",
            str(tmp_path / "ledger.csv"),
            option,
            "nope",
        )
        assert result.exit_code == 1
        assert "error[not-found]" in result.stderr
