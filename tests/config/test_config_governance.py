"""The governance keys in a config: schedule windows, budgets, max_priority and aging are read
into the desired state, refused with positions when wrong, and every rule is judged in each
combination of windows that occurs."""

from __future__ import annotations

import json
from textwrap import dedent
from typing import TYPE_CHECKING

from quotactl.config import json_schema, load_config
from quotactl.core.resources.desired import UNLIMITED, Aging, Budget, Strategy, When

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

CONFIG = """\
platform: {name: demo, region: us-east-1}
environments:
  - name: gpu-pool
    capacity: {ml.p5.48xlarge: 16}
queues:
  - name: training
    environment: gpu-pool
    aging: {after: 4h, every: 1h, step: 1, max: 50}
teams:
  - name: research
    max_priority: 100
    budget: {every: month, instance_hours: {ml.p5.48xlarge: 2000}, over: hard}
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 8}
        sharing: lend
        schedule:
          - name: weekend
            when: {days: [sat, sun]}
            capacity: {ml.p5.48xlarge: 12}
          - name: nights
            when: {days: [mon-fri], hours: "20:00-08:00", timezone: Europe/Berlin}
            sharing: lend_and_borrow
            borrow_limit: unlimited
          - name: holidays
            when: {dates: [2026-12-24/2026-12-26, "2027-01-01"]}
            enabled: false
  - name: nlp
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 8}, sharing: lend}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(dedent(text))
    return path


def test_the_policies_reach_the_desired_state_as_plain_data(tmp_path: Path) -> None:
    desired = load_config([_write(tmp_path, CONFIG)]).desired
    weekend, nights, holidays = desired.shares[0].schedule
    assert weekend.when == When(days=(5, 6))
    assert weekend.capacity == {"ml.p5.48xlarge": 12}
    assert nights.when.days == (0, 1, 2, 3, 4)
    assert nights.when.hours == (1200, 480)
    assert nights.when.timezone == "Europe/Berlin"
    assert (nights.strategy, nights.borrow_limit) == (Strategy.LEND_AND_BORROW, UNLIMITED)
    assert [str(d) for d in holidays.when.dates[0]] == ["2026-12-24", "2026-12-26"]
    assert holidays.enabled is False
    assert desired.queues[0].aging == Aging(after=14400.0, every=3600.0, step=1, max=50)
    (team,) = desired.teams
    assert team.max_priority == 100
    assert team.budget == Budget("month", {"ml.p5.48xlarge": 2000.0}, "used", "hard")


def test_bad_windows_are_refused_with_their_positions(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    bad = CONFIG.replace("days: [sat, sun]", "days: [sat, sunday]")
    bad = bad.replace("timezone: Europe/Berlin", "timezone: Europe/Berlim")
    bad = bad.replace('"20:00-08:00"', '"20:00-8:00"')
    bad = bad.replace("over: hard", "over: later")
    result = cli("validate", str(_write(tmp_path, bad)))
    assert result.exit_code == 1
    path = tmp_path / "config.yaml"
    over = "teams[0].budget.over: expected one of 'soft' or 'hard', got 'later'"
    over = "teams[0].budget.over: expected one of 'soft' or 'hard', got 'later'"
    assert f"{path}:12:74: error: {over}" in result.stderr
    assert f"{path}:22:44: error: teams[0].shares[0].schedule[1].when.hours: '20:00-8:00'" in (
        result.stderr
    )
    assert (
        f"{path}:22:68: error: teams[0].shares[0].schedule[1].when.timezone: expected an IANA "
        "time zone such as UTC or Europe/Berlin, got 'Europe/Berlim'"
    ) in result.stderr


def test_windows_named_twice_empty_or_lending_with_a_borrow_limit_are_refused(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    bad = CONFIG.split("teams:")[0] + dedent("""\
        teams:
          - name: research
            shares:
              - queue: training
                capacity: {ml.p5.48xlarge: 8}
                sharing: lend
                schedule:
                  - {name: weekend, when: {days: [sat, sun]}, enabled: false}
                  - {name: nights, when: {hours: "20:00-20:00"}, borrow_limit: 5}
                  - {name: weekend, when: {days: [fri]}, in_share_preemption: true}
                  - {name: idle, when: {days: [mon]}}
                  - {name: big, when: {days: [tue]}, capacity: {ml.g5.xlarge: 1}}
        """)
    result = cli("validate", str(_write(tmp_path, bad)))
    path = tmp_path / "config.yaml"
    assert result.exit_code == 1
    for expected in (
        f"{path}:17:42: error: window 'nights' lasts no time (20:00-20:00)",
        f"{path}:17:58: error: window 'nights': borrow_limit applies only to sharing: "
        "lend_and_borrow, and the share is lend in this window",
        f"{path}:18:20: error: window 'weekend' is defined twice on share 'research' "
        f"(first at {path}:16:20)",
        f"{path}:19:20: error: window 'idle' overrides nothing",
        f"{path}:20:57: error: ml.g5.xlarge is not in environment 'gpu-pool'",
    ):
        assert expected in result.stderr, result.stderr


def test_a_window_that_overlaps_an_earlier_one_is_a_warning(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    result = cli("validate", str(_write(tmp_path, CONFIG)))
    assert result.exit_code == 0, result.stderr
    path = tmp_path / "config.yaml"
    assert (
        f"{path}:21:19: warning: window 'nights' overlaps window 'weekend', which comes first "
        "and wins (both match at "
    ) in result.stderr


def test_a_rule_is_judged_in_each_combination_of_windows(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    ruled = CONFIG + "rules:\n  - {name: fits, level: hard, check: capacity_within_environment}\n"
    result = cli("validate", str(_write(tmp_path, ruled)), "-o", "json")
    assert result.exit_code == 1
    (rule,) = json.loads(result.stdout)["rules"]
    assert rule["result"] == "fail"
    assert rule["message"].startswith(
        "shares promise more than the environment has: gpu-pool ml.p5.48xlarge: "
        "20 promised, 16 available (window training/research: weekend in force, e.g. at "
    )
    fits = ruled.replace("capacity: {ml.p5.48xlarge: 12}", "capacity: {ml.p5.48xlarge: 8}")
    assert cli("validate", str(_write(tmp_path, fits))).exit_code == 0


def test_the_json_schema_describes_the_governance_keys() -> None:
    defs = json_schema()["$defs"]
    assert set(defs["Window"]["properties"]) == {
        "name",
        "when",
        "capacity",
        "sharing",
        "borrow_limit",
        "in_share_preemption",
        "enabled",
    }
    assert set(defs["When"]["properties"]) == {"days", "hours", "dates", "timezone"}
    assert set(defs["Budget"]["properties"]) == {"every", "instance_hours", "counts", "over"}
    assert set(defs["Aging"]["properties"]) == {"after", "every", "step", "max", "preempt"}
    assert {"budget", "max_priority"} <= set(defs["Team"]["properties"])
    assert "schedule" in defs["Share"]["properties"]
    assert "aging" in defs["Queue"]["properties"]


def test_schema_rejects_an_unknown_window_key(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    bad = CONFIG.replace("capacity: {ml.p5.48xlarge: 12}", "capacty: {ml.p5.48xlarge: 12}")
    result = cli("validate", str(_write(tmp_path, bad)))
    assert result.exit_code == 1
    assert "unknown key 'capacty' in teams[0].shares[0].schedule[0]" in result.stderr


def test_the_policy_records_count_against_a_shares_tags_and_a_window_name_fits_a_tag_key(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    # 42 team tags + quotactl:stack, quotactl:team + 2 governor slots = 46: fine without
    # records; research's 3 windows, its base and its budget make 51
    tags = ", ".join(f"t{n}: v" for n in range(42))
    crowded = CONFIG.replace("  - name: research\n", f"  - name: research\n    tags: {{{tags}}}\n")
    long_name = "w" * 113
    crowded = crowded.replace("name: holidays", f"name: {long_name}")
    result = cli("validate", str(_write(tmp_path, crowded)))
    assert result.exit_code == 1, result.stdout
    path = tmp_path / "config.yaml"
    assert (
        f"{path}:18:9: error: share training/research would carry "
        "51 tags: 46 (platform, team, managed and the governor's) and 5 policy records (one per "
        "schedule window, its base settings, its budget); AWS allows 50"
    ) in result.stderr
    assert (
        f"{path}:26:19: error: window name '{'w' * 40}'... is 113 characters: "
        "its record tag quotactl:window:<name> allows 112 at most"
    ) in result.stderr
