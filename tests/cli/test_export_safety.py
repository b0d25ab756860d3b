"""export is safe: file names from hostile tags stay in --out, non-empty --out needs --force."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from quotactl.config.export import export, team_name
from quotactl.config.writer import HEADER
from quotactl.core.resources.desired import STACK_TAG, TEAM_TAG, QueueSpec, ShareSpec
from quotactl.core.resources.observed import ObservedResource, ObservedState
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
HOSTILE = ["../x", "/abs", "a/b", "", "y" * 300, "..", "NUL\x00", "x" * 256 + "/../.."]
NAME = r"[A-Za-z0-9_-]{1,128}"


@pytest.mark.parametrize("tag", HOSTILE)
def test_a_hostile_team_tag_becomes_a_plain_valid_team_name(tag: str) -> None:
    name = team_name(tag, fallback="share1")
    assert Path(name).name == name
    assert name not in ("", ".", "..")
    assert re.fullmatch(NAME, name)


def test_export_of_hostile_team_tags_writes_only_plain_distinct_files() -> None:
    queue = ObservedResource(
        QueueSpec("q", "env", "q-quota", tags={STACK_TAG: "demo"}), "arn:aws:batch:r:1:job-queue/q"
    )
    shares = [
        ObservedResource(
            ShareSpec("q", f"s{i}", {"ml.g5.xlarge": 1}, tags={STACK_TAG: "demo", TEAM_TAG: tag}),
            f"arn:aws:batch:r:1:job-queue/q/quota-share/s{i}",
        )
        for i, tag in enumerate([*HOSTILE, "a-b", "A-B"])  # a-b/A-B collide with a/b
    ]
    result = export(
        ObservedState((queue, *shares)), ["q"], stack="demo", region="r", account_id=None
    )
    teams = [path for path in result.files if path.startswith("teams/")]
    assert len(teams) == len(HOSTILE) + 2  # every tag its own team, none merged
    lowered = [t.lower() for t in teams]
    assert len(set(lowered)) == len(lowered)  # distinct even on case-insensitive disks
    for path in teams:
        folder, file = path.split("/")
        assert folder == "teams"
        assert file.endswith(".yaml")
        assert "/" not in file
        assert not file.startswith(".")
    assert sum("is not a valid team name" in w for w in result.warnings) == len(HOSTILE)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    assert cli("apply", "demo", "--auto-approve", "-q").exit_code == 0
    return tmp_path


def batch() -> Any:
    return client(Target("local", STATE, timing=TEST_TIMING))


def tag_team(share: str, team: str) -> None:
    arn = f"arn:aws:batch:us-east-1:123456789012:job-queue/training/quota-share/{share}"
    batch().tag_resource(resourceArn=arn, tags={TEAM_TAG: team})


def test_export_with_hostile_live_tags_stays_inside_out(demo: Path, cli: Cli) -> None:
    # AWS caps tag values at 256 characters, so that is the longest a live tag can be.
    hostile = {"nlp": "../x", "ranking": "/abs", "research": "a/b", "vision-experiments": ""}
    for share, team in hostile.items():
        tag_team(share, team)
    result = cli("export", "--out", "exported")
    assert result.exit_code == 0, result.stderr
    written = sorted(
        str(p.relative_to(demo)) for p in demo.rglob("*.yaml") if "demo" not in p.parts
    )
    assert all(p.startswith("exported/") for p in written), written
    assert not (demo.parent / "x.yaml").exists()
    assert not Path("/abs.yaml").exists()
    assert (demo / "exported" / "teams" / "x.yaml").read_text().startswith(HEADER)
    assert result.stderr.count("is not a valid team name") == 4
    plan = cli("plan", "exported")  # valid config: the plan only retags the shares
    assert plan.exit_code == 0, plan.stderr
    tag_team("nlp", "n" * 256)
    again = cli("export", "--out", "long", "-q")
    assert again.exit_code == 0
    assert (demo / "long" / "teams" / ("n" * 128 + ".yaml")).exists()


def test_a_non_empty_out_is_refused_and_force_removes_stale_team_files(
    demo: Path, cli: Cli
) -> None:
    assert cli("export", "--out", "exported", "-q").exit_code == 0
    (demo / "exported" / "NOTES.txt").write_text("mine")
    (demo / "exported" / "teams" / "nlp.yaml").write_text("# edited by hand\n")
    refused = cli("export", "--out", "exported")
    assert refused.exit_code == 1
    assert "error[out-not-empty]: --out exported is not empty; nothing was written" in (
        refused.stderr
    )
    assert (demo / "exported" / "teams" / "nlp.yaml").read_text() == "# edited by hand\n"
    # The ranking team goes away live; a forced export removes its file and rewrites the rest.
    arn = "arn:aws:batch:us-east-1:123456789012:job-queue/training/quota-share/ranking"
    batch().update_quota_share(quotaShareArn=arn, state="DISABLED")
    cli("plan", "demo", "-q")  # a request lets the emulator settle the share
    batch().delete_quota_share(quotaShareArn=arn)
    cli("plan", "demo", "-q")
    forced = cli("export", "--out", "exported", "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "Removed exported/teams/ranking.yaml (its team no longer exists)" in forced.stderr
    assert not (demo / "exported" / "teams" / "ranking.yaml").exists()
    assert (demo / "exported" / "teams" / "nlp.yaml").read_text().startswith(HEADER)
    assert (demo / "exported" / "NOTES.txt").read_text() == "mine"
    assert cli("plan", "exported", "--detailed-exitcode").exit_code == 0


def test_force_never_follows_a_symlink_out_of_out(demo: Path, cli: Cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (demo / "exported").mkdir()
    (demo / "exported" / "teams").symlink_to(outside)
    result = cli("export", "--out", "exported", "--force")
    assert result.exit_code == 1
    assert "error[unsafe-path]" in result.stderr
    assert list(outside.iterdir()) == []
