"""Nothing destroyed, nothing leaked: what a careless or hostile user gives every command.

`local reset` deletes only a quotactl state file; no hint offers it for any other file; a
writer never replaces a state file and keeps a symbolic link; a link under a config
directory that leads out of the paths named is refused, its target never read; a name from
a pull request cannot drive the terminal. Each table row is one case of the hostile sweep.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from typing import TYPE_CHECKING

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from quotactl.emulator import Emulator
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = REPO_ROOT / "configs" / "demo"
JOBSPEC = REPO_ROOT / "configs" / "jobs" / "fine-tune.yaml"
SECRET = "root:$6$SECRET-HASH-MARKER"
MARK = 0x7163746C  # "qctl", the application_id of a state file


def _state(path: Path) -> Path:
    Emulator(path).close()
    return path


def _foreign_database(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA application_id = 42")
        db.execute("CREATE TABLE notes (body TEXT)")
    return path


def _link(to: Callable[[Path], Path]) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        target = to(path.with_name(f"target-of-{path.name}"))
        path.symlink_to(target.name)
        return path

    return make


def _text(path: Path) -> Path:
    path.write_text("my notes\n")
    return path


def _config(path: Path) -> Path:
    shutil.copy(DEMO / "platform.yaml", path)
    return path


def _empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


# what --state names: (how it is made, what the refusal says)
NOT_STATE = {
    "a text file": (_text, "is not a quotactl emulator state file"),
    "a YAML config": (_config, "is not a quotactl emulator state file"),
    "an empty file": (_empty, "is not a quotactl emulator state file"),
    "a named pipe": (_fifo, "is a named pipe, not a quotactl emulator state file"),
    "a directory": (_directory, "is a directory, not a quotactl emulator state file"),
    "another program's database": (_foreign_database, "is not a quotactl emulator state file"),
    "a link to a text file": (_link(_text), "is a symbolic link, not a quotactl"),
    "a link to a state file": (_link(_state), "is a symbolic link, not a quotactl"),
}


def _snapshot(folder: Path) -> dict[str, object]:
    seen: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            seen[path.name] = ("link", os.readlink(path))
        elif path.is_file():
            seen[path.name] = path.read_bytes()
        else:
            seen[path.name] = "other"
    return seen


@pytest.mark.parametrize("given", sorted(NOT_STATE))
def test_local_reset_deletes_nothing_that_is_no_state_file(
    given: str, tmp_path: Path, cli: Cli
) -> None:
    make, said = NOT_STATE[given]
    path = make(tmp_path / "thing")
    before = _snapshot(tmp_path)
    result = cli("--state", str(path), "local", "reset")
    assert result.exit_code == 1, result.stdout
    assert "error[not-ours]" in result.stderr
    assert said in result.stderr or "is not a quotactl emulator state file" in result.stderr
    assert "nothing was deleted" in result.stderr
    assert _snapshot(tmp_path) == before


def test_local_reset_deletes_a_state_file_made_before_the_mark_which_opening_stamps(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a variant named (the suite's --emulator-variant too) makes reset leave a new empty account
    monkeypatch.delenv("QUOTACTL_EMULATOR_VARIANT", raising=False)
    old = _state(tmp_path / "old.db")
    with sqlite3.connect(old) as db:
        db.execute("PRAGMA application_id = 0")
    Emulator(old).close()  # opening stamps it
    assert int.from_bytes(old.read_bytes()[68:72], "big") == MARK
    new = _state(tmp_path / "new.db")
    assert int.from_bytes(new.read_bytes()[68:72], "big") == MARK
    with sqlite3.connect(new) as db:
        db.execute("PRAGMA application_id = 0")
    result = cli("--state", str(new), "local", "reset")
    assert result.exit_code == 0, result.stderr
    assert not new.exists()


@pytest.mark.parametrize(
    "given", ["a text file", "a YAML config", "an empty file", "a named pipe", "a directory"]
)
def test_a_state_path_that_is_no_state_file_is_refused_untouched_and_no_hint_offers_reset(
    given: str, tmp_path: Path, cli: Cli
) -> None:
    path = NOT_STATE[given][0](tmp_path / "thing")
    before = _snapshot(tmp_path)
    result = cli("--state", str(path), "status")
    assert result.exit_code == 1
    assert "error[emulator-state]" in result.stderr
    assert "reset" not in result.stderr
    assert _snapshot(tmp_path) == before  # not even a -lock file beside it


def test_another_programs_database_is_refused_not_taken_over(tmp_path: Path, cli: Cli) -> None:
    path = _foreign_database(tmp_path / "app.db")
    result = cli("--state", str(path), "status")
    assert result.exit_code == 1
    assert "another program's SQLite database" in result.stderr
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert tables == {"notes"}


# -- writers ----------------------------------------------------------------------------------
WRITERS = {
    "plan --out": ["plan", str(DEMO), "--out", "{}"],
    "trace generate --out": ["trace", "generate", str(DEMO), "--jobs", "2", "--out", "{}"],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_no_writer_replaces_a_state_file(command: str, tmp_path: Path, cli: Cli) -> None:
    victim = _state(tmp_path / "precious.db")
    before = victim.read_bytes()
    argv = [a.replace("{}", str(victim)) for a in WRITERS[command]]
    result = cli("--state", str(tmp_path / "s.db"), *argv)
    assert result.exit_code == 1, result.stderr
    assert "error[not-ours]" in result.stderr
    assert victim.read_bytes() == before


def test_a_writer_writes_through_a_link_and_keeps_it(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "real.csv").write_text("old\n")
    link = tmp_path / "trace.csv"
    link.symlink_to("real.csv")
    result = cli("trace", "generate", str(DEMO), "--jobs", "2", "--out", str(link))
    assert result.exit_code == 0, result.stderr
    assert link.is_symlink()
    assert (tmp_path / "real.csv").read_text() != "old\n"


def test_fmt_formats_a_linked_config_through_the_link(tmp_path: Path, cli: Cli) -> None:
    configs = tmp_path / "configs"
    shutil.copytree(DEMO, configs)
    real = configs / "shared" / "platform.yaml"
    real.parent.mkdir()
    text = (configs / "platform.yaml").read_text().replace("name: demo", 'name: "demo"')
    real.write_text(text)
    (configs / "platform.yaml").unlink()
    (configs / "platform.yaml").symlink_to("shared/platform.yaml")
    result = cli("fmt", str(configs))
    assert result.exit_code == 0, result.stderr
    assert (configs / "platform.yaml").is_symlink()
    assert "name: demo\n" in real.read_text()


# -- inside the tree --------------------------------------------------------------------------
def _tree(tmp_path: Path, link: str) -> Path:
    """A config tree with a link at ``teams/<link>`` to a secret file (or a directory
    holding one) outside it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shadow").write_text(f"{SECRET}:19000:0:99999:7:::\n")
    (outside / "leak.yaml").write_text(f"{SECRET}: 1\n")
    configs = tmp_path / "configs"
    shutil.copytree(DEMO, configs)
    target = outside if link == "dir" else outside / "shadow"
    (configs / "teams" / link).symlink_to(target)
    (configs / "teams" / "alias.yml").symlink_to("nlp.yaml")  # inside: read, once
    return configs


READERS = {
    "validate": ["validate", "{}"],
    "plan": ["plan", "{}"],
    "fmt --check": ["fmt", "--check", "{}"],
    "validate --rules": ["validate", str(DEMO), "--rules", "{}"],
}


@pytest.mark.parametrize("link", ["x.yaml", "dir"])
@pytest.mark.parametrize("command", sorted(READERS))
def test_a_link_out_of_the_config_tree_is_refused_and_never_read(
    command: str, link: str, tmp_path: Path, cli: Cli
) -> None:
    configs = _tree(tmp_path, link)
    argv = [a.replace("{}", str(configs)) for a in READERS[command]]
    result = cli("--state", str(tmp_path / "s.db"), *argv)
    assert result.exit_code == 1, result.stdout
    assert "error[config-outside-tree]" in result.stderr
    assert f"{configs / 'teams' / link}:1:1: error:" in result.stderr
    assert "SECRET-HASH" not in result.stdout + result.stderr
    # the same link is fine once its target is named on the command line too
    named = cli("--state", str(tmp_path / "s.db"), *argv, str(tmp_path / "outside"))
    assert "config-outside-tree" not in named.stderr
    (configs / "teams" / link).unlink()  # and a link inside the tree is read as any file
    inside = cli("--state", str(tmp_path / "s.db"), *argv)
    assert "config-outside-tree" not in inside.stderr


# -- names a pull request controls --------------------------------------------------------------
@given(st.text(min_size=1, max_size=30))
@settings(max_examples=200, deadline=None)
def test_a_diagnostic_is_one_line_without_control_characters_whatever_the_file_name(
    name: str,
) -> None:
    from quotactl.errors import Diagnostic

    shown = str(Diagnostic(f"configs/{name}.yaml", 1, 1, f"unknown key {name!r}"))
    assert "\n" not in shown
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", shown)


def test_a_file_name_with_escapes_and_newlines_prints_escaped(tmp_path: Path, cli: Cli) -> None:
    configs = tmp_path / "configs"
    shutil.copytree(DEMO, configs)
    (configs / "teams" / "\x1b[31mred\nerror[forged]: x.yaml").write_text(
        "teams:\n  - name: evil\n    bogus: 1\n"
    )
    result = cli("validate", str(configs))
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr
    assert not any(line.startswith("error[forged]") for line in result.stderr.splitlines())


# -- the rest of the list ---------------------------------------------------------------------
def test_submit_with_an_empty_name_is_a_usage_error(tmp_path: Path, cli: Cli) -> None:
    state = str(tmp_path / "s.db")
    assert cli("--state", state, "apply", str(DEMO), "--auto-approve").exit_code == 0
    result = cli("--state", state, "submit", str(JOBSPEC), "--name", "", "--dry-run")
    assert result.exit_code == 64, result.stderr
    assert "--name is empty" in result.stderr


def test_file_too_large_says_both_sizes_apart(tmp_path: Path, cli: Cli) -> None:
    spec = tmp_path / "big.yaml"
    spec.write_bytes(b"#" * (1024 * 1024 + 1))
    result = cli("--state", str(tmp_path / "s.db"), "submit", str(spec), "--dry-run")
    assert "error[file-too-large]" in result.stderr
    assert "1,048,577 bytes" in result.stderr
    assert "1,048,576 bytes" in result.stderr


OTHER_STACK = """
platform: {name: other, region: us-east-1}
environments:
  - {name: cpu-pool, capacity: {ml.m5.xlarge: 4}}
queues:
  - {name: batchq, environment: cpu-pool}
teams:
  - name: zeta
    shares:
      - {queue: batchq, capacity: {ml.m5.xlarge: 4}, sharing: reserve}
"""


def test_export_of_one_stack_in_a_two_stack_account_plans_clean(tmp_path: Path, cli: Cli) -> None:
    state = str(tmp_path / "s.db")
    (tmp_path / "other.yaml").write_text(OTHER_STACK)
    assert cli("--state", state, "apply", str(DEMO), "--auto-approve").exit_code == 0
    other = cli("--state", state, "apply", str(tmp_path / "other.yaml"), "--auto-approve")
    assert other.exit_code == 0, other.stderr
    out = tmp_path / "out"
    exported = cli("--state", state, "export", "--stack", "demo", "--out", str(out))
    assert exported.exit_code == 0, exported.stderr
    assert "batchq" not in "".join(p.read_text() for p in out.rglob("*.yaml"))
    plan = cli("--state", state, "plan", str(out), "--detailed-exitcode")
    assert plan.exit_code == 0, plan.stderr


LONG_TEAM = "research-and-development-of-very-large-language-models"


def test_piped_output_never_cuts_a_name(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.chdir(tmp_path)
    configs = tmp_path / "configs"
    shutil.copytree(DEMO, configs)
    team = configs / "teams" / "research.yaml"
    team.write_text(team.read_text().replace("name: research", f"name: {LONG_TEAM}"))
    state = str(tmp_path / "s.db")
    applied = cli("--state", state, "apply", "configs", "--auto-approve")
    assert applied.exit_code == 0, applied.stderr
    for command in ("status", "usage"):
        shown = cli("--state", state, "--no-color", command)
        assert shown.exit_code == 0, shown.stderr
        assert LONG_TEAM in shown.stdout
        assert "ml.p5.48xlarge" in shown.stdout
        assert "…" not in shown.stdout


def test_usage_every_day_on_a_young_stack_prints_only_days_with_something(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(DEMO, tmp_path / "configs")
    state = str(tmp_path / "s.db")
    assert cli("--state", state, "apply", "configs", "--auto-approve").exit_code == 0
    assert cli("--state", state, "submit", str(JOBSPEC)).exit_code == 0
    assert cli("--state", state, "local", "advance", "1h").exit_code == 0
    usage = cli("--state", state, "usage", "--every", "day")
    assert usage.exit_code == 0, usage.stderr
    days = [line for line in usage.stdout.splitlines() if line.endswith("(instance-hours)")]
    assert 1 <= len(days) - 1 <= 2  # the window's own table, then today (and yesterday)


def test_local_serve_on_every_interface_prints_a_url_a_client_can_use(tmp_path: Path) -> None:
    from quotactl import api

    with api.serve(tmp_path / "s.db", "0.0.0.0", 0) as server:
        port = server.server_address[1]
        assert server.server_url == f"http://127.0.0.1:{port}"


def test_the_workflow_applies_the_plan_of_the_merged_commit_only() -> None:
    text = (REPO_ROOT / "configs" / "ci" / "quotactl-gitops.yml.example").read_text()
    steps = yaml.safe_load(text)["jobs"]["apply"]["steps"]
    find = next(s for s in steps if s.get("id") == "run")
    assert find["env"]["HEAD_SHA"] == "${{ github.event.pull_request.head.sha }}"
    assert '--commit "$HEAD_SHA"' in find["run"]
    assert "--status success" not in find["run"]
    assert "--exit-status" in find["run"]
    gitlab = (REPO_ROOT / "configs" / "ci" / "quotactl-gitops.gitlab-ci.yml.example").read_text()
    assert "/jobs/artifacts/" not in gitlab  # the branch's latest, whatever commit made it
    assert 'merged[0]["sha"]' in gitlab


def test_export_force_removes_only_team_files_an_export_wrote(tmp_path: Path, cli: Cli) -> None:
    from quotactl.config.writer import HEADER

    state = str(tmp_path / "s.db")
    assert cli("--state", state, "apply", str(DEMO), "--auto-approve").exit_code == 0
    teams = tmp_path / "out" / "teams"
    teams.mkdir(parents=True)
    (teams / "gone.yaml").write_text(HEADER + "teams: []\n")
    (teams / "handmade.yaml").write_text("# my own notes on a team\n")
    result = cli("--state", state, "export", "--out", str(tmp_path / "out"), "--force")
    assert result.exit_code == 0, result.stderr
    assert not (teams / "gone.yaml").exists()
    assert (teams / "handmade.yaml").read_text() == "# my own notes on a team\n"


def test_a_plan_never_replaces_a_config(tmp_path: Path, cli: Cli) -> None:
    victim = _config(tmp_path / "platform.yaml")
    before = victim.read_bytes()
    result = cli("--state", str(tmp_path / "s.db"), "plan", str(DEMO), "--out", str(victim))
    assert result.exit_code == 1, result.stderr
    assert "error[not-ours]: plan file" in result.stderr
    assert victim.read_bytes() == before
    again = cli("--state", str(tmp_path / "s.db"), "plan", str(DEMO), "--out", str(victim) + "x")
    assert again.exit_code == 0, again.stderr
    twice = cli("--state", str(tmp_path / "s.db"), "plan", str(DEMO), "--out", str(victim) + "x")
    assert twice.exit_code == 0, twice.stderr  # a plan replaces a plan


def test_history_never_overwrites_the_state_file_it_reads(tmp_path: Path, cli: Cli) -> None:
    state = tmp_path / "s.db"
    assert cli("--state", str(state), "apply", str(DEMO), "--auto-approve").exit_code == 0
    result = cli("--state", str(state), "history", "--out", str(state))
    assert result.exit_code == 1, result.stderr
    assert "error[not-ours]: ledger" in result.stderr
    assert state.read_bytes().startswith(b"SQLite format 3\0")


def test_a_writer_refuses_a_link_to_nothing(tmp_path: Path, cli: Cli) -> None:
    link = tmp_path / "trace.csv"
    link.symlink_to(tmp_path / "nowhere" / "x.csv")
    result = cli("trace", "generate", str(DEMO), "--jobs", "2", "--out", str(link))
    assert result.exit_code == 1, result.stderr
    assert "is a symbolic link to nothing" in result.stderr
    assert link.is_symlink()
    assert not (tmp_path / "nowhere").exists()
