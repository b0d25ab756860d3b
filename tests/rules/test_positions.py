"""Bad rules are validate errors at the position of what to change: the check, the parameter,
the second use of a name, the team or share the config lacks. Generated rule documents never
crash the loader and every error they cause points into the rules file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.config import load_config
from quotactl.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.config import LoadedConfig
    from quotactl.errors import Diagnostic

PLATFORM = """\
platform: {name: p, region: us-east-1}
environments:
  - {name: gpu, capacity: {ml.p5.48xlarge: 8}}
  - {name: cpu, capacity: {ml.p5.48xlarge: 8}}
queues:
  - {name: training, environment: gpu}
  - {name: batch, environment: cpu}
teams:
  - name: nlp
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend}
      - {queue: batch, capacity: {ml.p5.48xlarge: 4}, sharing: lend}
"""


def errors(tmp_path: Path, rules: str) -> list[tuple[int, int, str]]:
    (tmp_path / "platform.yaml").write_text(PLATFORM)
    (tmp_path / "rules.yaml").write_text(rules)
    try:
        load_config([tmp_path])
    except ConfigError as exc:
        return [(d.line, d.column, d.message) for d in exc.diagnostics if d.severity == "error"]
    return []


def test_an_unknown_check_is_reported_at_the_check(tmp_path: Path) -> None:
    found = errors(tmp_path, "rules:\n  - name: a\n    level: soft\n    check: max_capacitty\n")
    assert found == [
        (4, 12, "rules[0]: unknown check 'max_capacitty' (did you mean 'max_capacity'?)")
    ]


def test_a_missing_parameter_is_reported_at_the_rule(tmp_path: Path) -> None:
    found = errors(tmp_path, "rules:\n  - name: a\n    level: soft\n    check: max_disruption\n")
    assert found == [(2, 5, "rules[0]: missing required key 'jobs'")]


def test_a_wrongly_typed_parameter_is_reported_at_its_value(tmp_path: Path) -> None:
    text = "rules:\n  - name: a\n    level: hard\n    check: max_borrow_limit\n    value: lots\n"
    assert errors(tmp_path, text) == [
        (5, 12, "rules[0].value: expected a whole number, got the string 'lots'")
    ]


def test_a_parameter_of_another_check_is_an_unknown_key(tmp_path: Path) -> None:
    rule = "  - {name: a, level: soft, check: max_disruption, jobs: 1, keys: [x]}"
    ((line, column, message),) = errors(tmp_path, f"rules:\n{rule}\n")
    assert (line, column) == (2, rule.index("keys") + 1)
    assert message.startswith("unknown key 'keys' in rules[0]")


def test_a_name_used_twice_is_reported_at_the_second_citing_the_first(tmp_path: Path) -> None:
    text = (
        "rules:\n  - {name: a, level: soft, check: capacity_within_environment}\n"
        "  - {name: a, level: hard, check: capacity_within_environment}\n"
    )
    (found,) = errors(tmp_path, text)
    assert found == (3, 12, f"rule 'a' is defined twice (first at {tmp_path}/rules.yaml:2:12)")


def test_unknown_teams_and_shares_are_reported_at_their_values(tmp_path: Path) -> None:
    rules = [
        "  - {name: a, level: soft, check: max_wait, team: nlq, p95: 1h}",
        "  - {name: b, level: soft, check: max_wait, share: training/nlq, p95: 1h}",
        "  - {name: c, level: soft, check: max_wait, share: nlp, p95: 1h}",
    ]
    at = [rules[0].index("nlq") + 1, *(rule.index("share: ") + 8 for rule in rules[1:])]
    assert errors(tmp_path, "rules:\n" + "\n".join(rules) + "\n") == [
        (2, at[0], "rule 'a': team 'nlq' is not defined (did you mean 'nlp'?)"),
        (3, at[1], "rule 'b': share 'training/nlq' is not defined (did you mean 'training/nlp'?)"),
        (
            4,
            at[2],
            "rule 'c': share 'nlp' is on more than one queue: write queue/name "
            "(training/nlp, batch/nlp)",
        ),
    ]


def test_good_rules_load_into_the_config(tmp_path: Path) -> None:
    text = "rules:\n  - {name: a, level: soft, check: max_wait, share: training/nlp, p95: 2h}\n"
    (tmp_path / "platform.yaml").write_text(PLATFORM)
    (tmp_path / "rules.yaml").write_text(text)
    (rule,) = load_config([tmp_path]).rules
    assert (rule.name, rule.share, rule.p95) == ("a", "training/nlp", 7200.0)


VALUES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 300),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["nlp", "training/nlp", "2h", "soon", "unlimited", "ml.p5.48xlarge"]),
    st.lists(st.sampled_from(["owner", "tier", 3]), max_size=3),
    st.dictionaries(st.sampled_from(["ml.p5.48xlarge", "ml.nope"]), st.integers(-1, 9), max_size=2),
)
RULE = st.dictionaries(
    st.sampled_from(
        ["name", "level", "check", "team", "share", "capacity", "value", "allow_unlimited",
         "keys", "jobs", "p95", "mean", "count", "work_lost", "bogus"]
    ),
    VALUES,
).map(lambda d: {"name": "r", "level": "soft", "check": "max_wait", **d})  # fmt: skip
CHECKS = st.sampled_from(
    ["capacity_within_environment", "min_capacity", "max_capacity", "max_reserve_fraction",
     "max_borrow_limit", "required_tags", "max_disruption", "max_wait", "max_preemptions"]
)  # fmt: skip


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rules=st.lists(st.tuples(RULE, CHECKS), max_size=4))
def test_any_rule_document_loads_or_fails_with_positions_in_the_rules_file(
    tmp_path: Path, rules: list[tuple[dict[str, Any], str]]
) -> None:
    document = {"rules": [{**rule, "check": check} for rule, check in rules]}
    text = yaml.safe_dump(document, sort_keys=False)
    lines = text.count("\n") + 1
    (tmp_path / "platform.yaml").write_text(PLATFORM)
    (tmp_path / "rules.yaml").write_text(text)
    loaded, diagnostics = _load(tmp_path)
    if loaded is None:
        assert diagnostics
        for d in diagnostics:
            if d.severity == "error":
                assert d.file.endswith("rules.yaml"), d
                assert 1 <= d.line <= lines, d
    else:
        assert len(loaded.rules) == len(rules)


def _load(where: Path) -> tuple[LoadedConfig | None, list[Diagnostic]]:
    try:
        return load_config([where]), []
    except ConfigError as exc:
        return None, exc.diagnostics
