"""On the scripted scenario (``tests/history/scenario.py``), ``history`` writes exactly the
attempts that happened and ``usage`` reports the figures worked out by hand, to the second:
per share and per team, for the window and for each UTC day, from a ledger and from the live
account alike. ``history --append`` over overlapping windows builds the same ledger as one
run over their union."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.core.history.ledger import iso
from tests.history.scenario import DAYS, STACK, TEAMS, WINDOW, Scenario, close, figures

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Scenario:
    """The whole script played, with ``history --append`` at 4 h, 6.5 h and 8 h over windows
    that overlap (``appended.csv``)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stack.yaml").write_text(STACK)
    assert cli("apply", "stack.yaml", "--auto-approve").exit_code == 0
    scenario = Scenario(STATE)
    looks = {4: "5h", 6.5: "3h", 8: "2h"}

    def step(hours: float) -> None:
        if hours in looks:
            result = cli("history", "--out", "appended.csv", "--append", "--since", looks[hours])
            assert result.exit_code == 0, result.stderr

    scenario.run(step=step)
    return scenario


def usage(cli: Cli, scenario: Scenario, *args: str) -> dict[str, Any]:
    window = ("--from", iso(scenario.at(0)), "--to", iso(scenario.at(8)))
    result = cli("--debug", "usage", "stack.yaml", *window, "--grace", "0", "-o", "json", *args)
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def by_name(rows: list[dict[str, Any]], key: str) -> dict[str, tuple[float, ...]]:
    return {row[key]: figures(row) for row in rows}


def test_history_writes_one_row_per_attempt_with_its_outcome(played: Scenario, cli: Cli) -> None:
    result = cli("history", "--out", "ledger.csv")
    assert result.exit_code == 0, result.stderr
    assert "API call" in result.stderr
    rows = list(csv.DictReader(Path("ledger.csv").read_text().splitlines()))
    t = played.at
    seen = [(r["name"], r["attempt"], r["outcome"], r["started_at"], r["stopped_at"]) for r in rows]
    assert seen == [
        ("A1", "1", "PREEMPTED", iso(t(0)), iso(t(1))),
        ("A1", "2", "PREEMPTED", iso(t(3)), iso(t(4))),
        ("A1", "3", "RUNNING", iso(t(5)), ""),
        ("B1", "1", "SUCCEEDED", iso(t(1)), iso(t(3))),
        ("A2", "1", "SUCCEEDED", iso(t(4)), iso(t(5))),
        ("C1", "1", "CANCELLED", iso(t(5.5)), iso(t(6.5))),
    ]
    assert {(r["name"], r["team"], r["count"]) for r in rows} >= {("A1", "red", "6")}


def test_three_appends_over_overlapping_windows_equal_one_run(played: Scenario, cli: Cli) -> None:
    assert cli("history", "--out", "once.csv").exit_code == 0
    assert Path("appended.csv").read_text() == Path("once.csv").read_text()
    again = cli("history", "--out", "appended.csv", "--append")
    assert "(0 new, 0 changed)" in again.stderr
    assert Path("appended.csv").read_text() == Path("once.csv").read_text()


def test_usage_per_share_equals_the_hand_computed_figures(played: Scenario, cli: Cli) -> None:
    assert cli("history", "--out", "ledger.jsonl").exit_code == 0
    for source in (("--history", "ledger.jsonl"), ()):
        document = usage(cli, played, *source)
        found = by_name(document["rows"], "share")
        assert sorted(found) == ["a", "b", "c"]
        for share, expected in WINDOW.items():
            assert close(found[share], expected), (source, share, found[share])
        a = next(r for r in document["rows"] if r["share"] == "a")
        assert a["wait"] == {"p50": 0.0, "p95": 0.0, "max": 0.0}
        assert a["guarantee_miss_hours"] == 0.0  # every reclaim was immediate
        assert a["longest_miss_seconds"] == 0.0
        assert a["cost"] is None


def test_usage_per_team_and_per_day(played: Scenario, cli: Cli) -> None:
    assert cli("history", "--out", "ledger.csv").exit_code == 0
    teams = usage(cli, played, "--history", "ledger.csv", "--by", "team")
    assert [(r["queue"], r["share"]) for r in teams["rows"]] == [(None, None)] * 2
    found = by_name(teams["rows"], "team")
    for team, expected in TEAMS.items():
        assert close(found[team], expected), (team, found[team])
    daily = usage(cli, played, "--history", "ledger.csv", "--every", "day")
    assert [p["from"] for p in daily["periods"]] == [iso(played.at(0)), iso(played.at(2))]
    for period, expected_rows in zip(daily["periods"], DAYS, strict=True):
        found = by_name(period["rows"], "share")
        for share, expected in expected_rows.items():
            assert close(found[share], expected), (period["from"], share, found[share])
    assert close(by_name(daily["rows"], "share")["a"], WINDOW["a"])
    team_days = usage(cli, played, "--history", "ledger.csv", "--every", "day", "--by", "team")
    blue = [by_name(p["rows"], "team")["blue"] for p in team_days["periods"]]
    for day, shares in zip(blue, DAYS, strict=True):
        summed = tuple(b + c for b, c in zip(shares["b"], shares["c"], strict=True))
        assert close(day, summed)


def test_prices_add_showback(played: Scenario, cli: Cli) -> None:
    assert cli("history", "--out", "ledger.csv").exit_code == 0
    Path("prices.yaml").write_text("ml.p5.48xlarge: 98.5\n")
    document = usage(cli, played, "--history", "ledger.csv", "--prices", "prices.yaml")
    rows = {r["share"]: r for r in document["rows"]}
    assert (rows["a"]["cost"], rows["a"]["cost_borrowed"]) == (34 * 98.5, 10 * 98.5)
    assert rows["b"]["credit_lent"] == 10 * 98.5
