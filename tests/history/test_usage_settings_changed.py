"""Borrowed and lent add up over a window in which a share's settings changed: on the scripted
scenario (``tests/history/scenario.py``), ``apply --log`` records the first configuration, a
second ``apply --log`` at 2 h raises a's limit to 5 and turns c (limit 1) into a lender, and
``usage --history LEDGER LOG`` gives, per share, the figures a minute-by-minute reference
works out from the ledger with each minute's settings; Σ borrowed = Σ lent. Without the log,
usage says which stretches took the configuration's settings."""

from __future__ import annotations

import csv
import json
import math
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.core.history.ledger import iso
from quotactl.core.status.compute import attribute
from tests.history.scenario import P5, STACK, Scenario

if TYPE_CHECKING:
    from collections.abc import Callable

    import pytest

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
CHANGED = STACK.replace(
    "capacity: {ml.p5.48xlarge: 4}\n        sharing: lend_and_borrow",
    "capacity: {ml.p5.48xlarge: 5}\n        sharing: lend_and_borrow",
).replace(
    "capacity: {ml.p5.48xlarge: 2}\n        sharing: reserve",
    "capacity: {ml.p5.48xlarge: 1}\n        sharing: lend",
)
BEFORE = {"a": (4, True), "b": (4, True), "c": (2, False)}
AFTER = {"a": (5, True), "b": (4, True), "c": (1, True)}
CHANGE_AT = 2  # hours after T0
FIGURES = ("entitled", "used", "own", "borrowed", "lent", "idle", "reserved_unused")


def reference(rows: list[dict[str, str]], t0: datetime) -> dict[str, dict[str, float]]:
    """Every figure per share, minute by minute over [T0, T0 + 8 h) (every event of the
    scenario falls on a minute), in instance-hours."""
    got = {s: dict.fromkeys(FIGURES, 0.0) for s in BEFORE}
    base = t0.timestamp()
    runs = [
        (
            r["share"],
            int(r["count"]),
            datetime.fromisoformat(r["started_at"].replace("Z", "+00:00")).timestamp() - base,
            datetime.fromisoformat(r["stopped_at"].replace("Z", "+00:00")).timestamp() - base
            if r["stopped_at"]
            else math.inf,
        )
        for r in rows
        if r["started_at"]
    ]
    for minute in range(8 * 60):
        t = minute * 60
        settings = BEFORE if t < CHANGE_AT * 3600 else AFTER
        figures = {}
        for share, (limit, lends) in settings.items():
            used = sum(n for s, n, a, b in runs if s == share and a <= t < b)
            own = min(used, limit)
            figures[share] = (used - own, limit - own if lends else 0)
            row = got[share]
            row["entitled"] += limit / 60
            row["used"] += used / 60
            row["own"] += own / 60
            row["borrowed"] += (used - own) / 60
            row["idle" if lends else "reserved_unused"] += (limit - own) / 60
        lent, _ = attribute(P5, figures)
        for share, value in lent.items():
            got[share]["lent"] += float(value) / 60
    return got


def test_usage_applies_the_settings_each_apply_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("stack.yaml").write_text(STACK)
    Path("changed.yaml").write_text(CHANGED)
    first = cli("apply", "stack.yaml", "--auto-approve", "--log", "changes.jsonl")
    assert first.exit_code == 0, first.stderr
    scenario = Scenario(STATE)

    def step(hours: float) -> None:
        if hours == 1:  # after B1's submission: the second apply, at 2 h
            scenario.advance_to(CHANGE_AT)
            result = cli("apply", "changed.yaml", "--auto-approve", "--log", "changes.jsonl")
            assert result.exit_code == 0, result.stderr

    scenario.run(step=step)
    records = [json.loads(line) for line in Path("changes.jsonl").read_text().splitlines()]
    assert {"at", "policy", "kind", "address", "before", "after", "reason", "result"} <= set(
        records[0]
    )
    changed = [r for r in records if r["at"] == iso(scenario.at(CHANGE_AT))]
    assert {(r["policy"], r["kind"], r["address"]) for r in changed} == {
        ("apply", "update-share", "share.training/a"),
        ("apply", "update-share", "share.training/c"),
    }
    assert cli("history", "--out", "ledger.csv", "--since", "9h").exit_code == 0
    window = ("--from", iso(scenario.at(0)), "--to", iso(scenario.at(8)), "--grace", "0")
    result = cli(
        "usage",
        "changed.yaml",
        "--history",
        "ledger.csv",
        "--history",
        "changes.jsonl",
        *window,
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    rows = list(csv.DictReader(Path("ledger.csv").read_text().splitlines()))
    expected = reference(rows, scenario.at(0))
    found = {r["share"]: r for r in document["rows"]}
    for share, figures in expected.items():
        for name, value in figures.items():
            assert math.isclose(found[share][name], value, abs_tol=1e-5), (share, name)
    assert math.isclose(
        sum(r["borrowed"] for r in document["rows"]),
        sum(r["lent"] for r in document["rows"]),
        abs_tol=1e-5,
    )
    assert sum(r["borrowed"] for r in document["rows"]) > 0
    assert document["settings_from_config"] == []

    # the ledger alone: only history's reading at 8 h, so the configuration's settings hold
    # before it, and usage says so
    alone = cli("usage", "changed.yaml", "--history", "ledger.csv", *window)
    assert alone.exit_code == 0, alone.stderr
    data = json.loads(
        cli("usage", "changed.yaml", "--history", "ledger.csv", *window, "-o", "json").stdout
    )
    guessed = {r["share"]: r for r in data["rows"]}
    # a's first hour: 6 in use over a limit of 4 (the log) or of 5 (the configuration)
    assert guessed["a"]["borrowed"] < found["a"]["borrowed"]
    assert {(g["share"], g["to"]) for g in data["settings_from_config"]} == {
        (s, iso(scenario.at(8))) for s in ("a", "b", "c")
    }
    assert (
        f"training/c: no settings record from {iso(scenario.at(0))} to {iso(scenario.at(8))};"
        " the configuration's settings are used"
    ) in alone.stdout


def test_history_records_the_shares_settings_and_a_change_made_by_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    """history keeps each share's settings beside the ledger once, then only what changed: a
    change made with boto3 (outside quotactl) is recorded by the next run, at its time."""
    from tests.cli.jobs_support import batch_client

    monkeypatch.chdir(tmp_path)
    Path("stack.yaml").write_text(STACK)
    assert cli("apply", "stack.yaml", "--auto-approve").exit_code == 0
    scenario = Scenario(STATE)
    first = cli("history", "--out", "ledger.csv")
    assert first.exit_code == 0, first.stderr
    assert "3 settings records added to ledger.csv.settings.jsonl" in first.stderr
    again = cli("history", "--out", "ledger.csv", "--append")
    assert "0 settings records added" in again.stderr
    assert "no share's settings changed" in again.stderr
    client = batch_client(STATE)
    arn = next(
        s["quotaShareArn"]
        for s in client.list_quota_shares(jobQueue="training")["quotaShares"]
        if s["quotaShareName"] == "c"
    )
    scenario.advance_to(1)
    client.update_quota_share(
        quotaShareArn=arn,
        capacityLimits=[{"maxCapacity": 1, "capacityUnit": P5}],
        resourceSharingConfiguration={"strategy": "LEND"},
    )
    scenario.advance_to(2)
    later = cli("history", "--out", "ledger.csv", "--append")
    assert "1 settings record added" in later.stderr
    lines = Path("ledger.csv.settings.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 4
    last = records[-1]
    assert (last["policy"], last["kind"], last["address"], last["result"]) == (
        "history",
        "observe-share",
        "share.training/c",
        "observed",
    )
    assert last["after"]["capacity"] == {P5: 1}
    assert last["after"]["sharing"] == "lend"
    assert last["at"] == iso(scenario.at(2))
    shown = cli(
        "usage",
        "stack.yaml",
        "--history",
        "ledger.csv",
        "--from",
        iso(scenario.at(0)),
        "--to",
        iso(scenario.at(3)),
        "-o",
        "json",
    )
    assert shown.exit_code == 0, shown.stderr
    c = next(r for r in json.loads(shown.stdout)["rows"] if r["share"] == "c")
    # c: 2 reserved for 2 h, then 1 lent-able for the third (the record), not 2 reserved
    assert (c["entitled"], c["reserved_unused"], c["idle"]) == (5.0, 4.0, 1.0)


def test_apply_refuses_a_log_it_cannot_write_before_changing_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("stack.yaml").write_text(STACK)
    refused = cli("apply", "stack.yaml", "--auto-approve", "--log", "/proc/quotactl.jsonl")
    assert refused.exit_code != 0
    assert "cannot write apply log /proc/quotactl.jsonl" in refused.stderr
    assert "Apply complete" not in refused.stdout + refused.stderr
    shown = cli("plan", "stack.yaml")
    assert "6 to create" in shown.stdout  # nothing was applied
