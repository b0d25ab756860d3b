"""load_config: what other commands get from a config (DesiredState, warnings, files)."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from quotactl.config import load_config
from quotactl.core.resources.desired import STACK_TAG, TEAM_TAG, UNLIMITED, Strategy
from quotactl.errors import ConfigError, FileIOError, NotFoundError

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO = REPO_ROOT / "configs" / "demo"

PLATFORM = """\
platform:
  name: demo
  region: us-east-1
  tags: {cost-center: ml}
environments:
  - name: gpu
    capacity: {ml.p5.48xlarge: 8}
queues:
  - name: training
    environment: gpu
"""


def _write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    return directory


def test_demo_becomes_one_environment_policy_queue_and_four_shares() -> None:
    loaded = load_config([DEMO])
    desired = loaded.desired

    assert (desired.stack, desired.region, desired.account_id) == ("demo", "us-east-1", None)
    assert [e.name for e in desired.environments] == ["gpu-pool"]
    assert dict(desired.environments[0].capacity) == {"ml.p5.48xlarge": 8, "ml.g5.12xlarge": 16}
    assert [p.name for p in desired.policies] == ["training-quota"]
    assert [(q.name, q.environment, q.policy, q.priority) for q in desired.queues] == [
        ("training", "gpu-pool", "training-quota", 10)
    ]
    assert desired.queues[0].runnable_timeout is not None
    assert desired.queues[0].runnable_timeout.seconds == 3600
    shares = {s.name: s for s in desired.shares}
    assert set(shares) == {"nlp", "vision-experiments", "research", "ranking"}
    assert (shares["nlp"].strategy, shares["nlp"].borrow_limit) == (Strategy.LEND_AND_BORROW, 100)
    assert shares["vision-experiments"].borrow_limit == UNLIMITED
    assert shares["vision-experiments"].team == "vision"
    assert (shares["research"].strategy, shares["research"].borrow_limit) == (
        Strategy.LEND,
        UNLIMITED,
    )
    assert shares["ranking"].strategy is Strategy.RESERVE
    assert shares["ranking"].in_share_preemption
    assert not shares["vision-experiments"].in_share_preemption
    assert loaded.diagnostics == []
    assert [p.relative_to(DEMO).as_posix() for p in loaded.files] == [
        "platform.yaml",
        "rules.yaml",
        "teams/nlp.yaml",
        "teams/ranking.yaml",
        "teams/research.yaml",
        "teams/vision.yaml",
    ]


def test_every_resource_is_tagged_with_the_stack_and_shares_with_their_team() -> None:
    desired = load_config([DEMO]).desired
    for tags in (
        *(e.tags for e in desired.environments),
        *(p.tags for p in desired.policies),
        *(q.tags for q in desired.queues),
    ):
        assert dict(tags) == {"cost-center": "ml-platform", STACK_TAG: "demo"}
    nlp = next(s for s in desired.shares if s.name == "nlp")
    assert dict(nlp.tags) == {
        "cost-center": "ml-platform",
        "owner": "nlp-lead",
        STACK_TAG: "demo",
        TEAM_TAG: "nlp",
    }
    vision = next(s for s in desired.shares if s.name == "vision-experiments")
    assert vision.tags[TEAM_TAG] == "vision"


def test_multi_queue_example_loads_three_queues_each_on_its_environment() -> None:
    desired = load_config([REPO_ROOT / "configs" / "examples" / "multi-queue"]).desired
    assert {(q.name, q.environment) for q in desired.queues} == {
        ("pretraining", "large-gpu"),
        ("fine-tuning", "small-gpu"),
        ("preprocessing", "cpu"),
    }
    assert desired.account_id == "123456789012"


def test_a_file_and_its_directory_given_together_load_it_once(tmp_path: Path) -> None:
    _write(tmp_path, {"platform.yaml": PLATFORM})
    loaded = load_config([tmp_path, tmp_path / "platform.yaml"])
    assert loaded.files == [tmp_path / "platform.yaml"]


def test_yml_files_and_nested_directories_are_read_in_sorted_order(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "b/teams.yml": """\
                teams:
                  - name: nlp
                    shares:
                      - {queue: training, capacity: {ml.p5.48xlarge: 8}, sharing: reserve}
                """,
            "a.yaml": PLATFORM,
            "notes.txt": "not config",
        },
    )
    loaded = load_config([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in loaded.files] == ["a.yaml", "b/teams.yml"]
    assert [s.name for s in loaded.desired.shares] == ["nlp"]


def test_anchors_aliases_and_merge_keys_are_plain_yaml_that_works(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "c.yaml": PLATFORM
            + """\
teams:
  - name: nlp
    shares:
      - &base {queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend}
  - name: vision
    shares:
      - <<: *base
        sharing: lend_and_borrow
        borrow_limit: 50
"""
        },
    )
    shares = {s.name: s for s in load_config([tmp_path]).desired.shares}
    assert shares["vision"].strategy is Strategy.LEND_AND_BORROW
    assert shares["vision"].borrow_limit == 50
    assert dict(shares["vision"].capacity) == {"ml.p5.48xlarge": 4}


def test_borrow_limit_unlimited_is_minus_one(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "c.yaml": PLATFORM
            + """\
teams:
  - name: a
    shares: [{queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend}]
  - name: b
    shares:
      - {queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend_and_borrow,
         borrow_limit: unlimited}
"""
        },
    )
    shares = {s.name: s for s in load_config([tmp_path]).desired.shares}
    assert shares["b"].borrow_limit == UNLIMITED


WARNING_CASES = {
    "lend_and_borrow with no lender": (
        "teams:\n  - name: a\n    shares:\n"
        "      - {queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: lend_and_borrow}\n"
        "  - name: b\n    shares:\n"
        "      - {queue: training, capacity: {ml.p5.48xlarge: 4}, sharing: reserve}\n",
        "t.yaml:4:38: share 'a' can never borrow ml.p5.48xlarge: no other share on queue "
        "'training' lends it",
    ),
    "capacity no share claims": (
        "teams:\n  - name: a\n    shares:\n"
        "      - {queue: training, capacity: {ml.p5.48xlarge: 6}, sharing: reserve}\n",
        "p.yaml:7:16: shares claim 6 of the 8 ml.p5.48xlarge of environment 'gpu': "
        "no job can use the other 2",
    ),
    "over-subscribed environment": (
        "teams:\n  - name: a\n    shares:\n"
        "      - {queue: training, capacity: {ml.p5.48xlarge: 10}, sharing: reserve}\n",
        "p.yaml:7:16: environment 'gpu' is over-subscribed on ml.p5.48xlarge: "
        "shares claim 10, it has 8",
    ),
}


@pytest.mark.parametrize("case", WARNING_CASES)
def test_sharing_graph_problems_are_warnings_at_their_position(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    teams, expected = WARNING_CASES[case]
    _write(tmp_path, {"p.yaml": PLATFORM, "t.yaml": teams})
    monkeypatch.chdir(tmp_path)
    loaded = load_config([Path(".")])
    assert len(loaded.diagnostics) == 1
    assert str(loaded.diagnostics[0]).startswith(expected.replace(": ", ": warning: ", 1))


def test_config_error_carries_warnings_along_with_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    teams = (
        "teams:\n  - name: a\n    shares:\n"
        "      - {queue: training, capacity: {ml.p5.48xlarge: 6}, sharing: reserve,"
        " borrow_limit: 5}\n"
    )
    _write(tmp_path, {"p.yaml": PLATFORM, "t.yaml": teams})
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as raised:
        load_config([Path(".")])
    assert [(d.file, d.severity) for d in raised.value.diagnostics] == [
        ("p.yaml", "warning"),
        ("t.yaml", "error"),
    ]
    assert raised.value.message == "configuration has 1 error"


def test_a_missing_path_is_an_io_error(tmp_path: Path) -> None:
    with pytest.raises(FileIOError, match="does not exist"):
        load_config([tmp_path / "nope"])


def test_a_directory_without_yaml_is_not_found(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("configs go here")
    with pytest.raises(NotFoundError, match="no configuration files"):
        load_config([tmp_path])


def test_errors_from_several_files_are_all_reported_in_file_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path,
        {"a.yaml": "platform: {name: x, region: nowhere}\n", "b.yaml": "queues: [{name: q}]\n"},
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as raised:
        load_config([Path(".")])
    assert [(d.file, d.line, d.column) for d in raised.value.diagnostics] == [
        ("a.yaml", 1, 29),
        ("b.yaml", 1, 10),
    ]


def test_nesting_deeper_than_the_yaml_parser_can_follow_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "deep.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError) as raised:
        load_config([tmp_path])
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.message == "YAML nested too deeply (a config nests at most 64 levels)"
    assert diagnostic.line == 1
