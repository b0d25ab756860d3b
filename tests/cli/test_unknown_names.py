"""One error for one situation: a queue, share, team or job that does not exist is
``not-found`` (exit 1, with a hint) in every command that takes one, never a usage error and
never an empty result. The commands are found by walking the command tree, so a new command
with ``--queue``, ``--share``, ``--team`` or a job ``ID`` joins this test or fails it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.cli.app import app
from quotactl.cli.tree import command_tree
from tests.cli.jobs_support import CONFIG, Jobs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

NAMED = {"queue": "--queue", "share": "--share", "team": "--team"}


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, (*path, name))
    if path:
        yield path, command


def _takes() -> set[tuple[str, str]]:
    """(command, what) for every command and every kind of name it takes."""
    found: set[tuple[str, str]] = set()
    for path, command in _walk(command_tree(app, [])):
        for param in command.params:
            if param.param_type_name == "option" and param.name in NAMED:
                found.add((" ".join(path), param.name))
            if param.param_type_name == "argument" and param.name in ("ref", "refs"):
                found.add((" ".join(path), "job"))
    return found


# What else each command needs to get as far as looking the name up.
EXTRA: dict[str, list[str]] = {
    "submit": ["{spec}"],
    "trace export": ["--out", "{tmp}/trace.csv"],
    "job priority": ["5"],
    "iam-policy": ["{tmp}/config.yaml"],
    "tune": ["{tmp}/config.yaml", "--trace", "{tmp}/trace.csv"],  # the queue is found first
}
CASES = sorted(_takes())


def test_the_walk_finds_every_kind_of_name() -> None:
    kinds = {what for _, what in CASES}
    assert kinds == {"queue", "share", "team", "job"}
    assert ("submit", "share") in CASES
    assert ("export", "queue") in CASES


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from quotactl.cli.app import run

    tmp = tmp_path_factory.mktemp("unknown")
    state = tmp / "state.db"
    (tmp / "config.yaml").write_text(CONFIG)
    applied = run(
        ["-q", "--state", str(state), "apply", str(tmp / "config.yaml"), "--auto-approve"]
    )
    assert applied == 0
    return tmp


@pytest.mark.parametrize(("command", "what"), CASES, ids=[f"{c}-{w}" for c, w in CASES])
@pytest.mark.parametrize("output", ["text", "json"])
def test_an_unknown_name_is_not_found(
    cli: Callable[..., CliResult], account: Path, command: str, what: str, output: str
) -> None:
    jobs = Jobs(cli, account)
    extra = [a.format(spec=jobs.spec(), tmp=account) for a in EXTRA.get(command, [])]
    name = ["nope"] if what == "job" else [NAMED[what], "nope"]
    if (command, what) == ("submit", "queue"):
        extra += ["--share", "a"]  # the spec names no share
    args = [*command.split(), *name, *extra]
    if output == "json" and command not in ("job logs", "trace export", "export", "iam-policy"):
        args += ["-o", "json"]
    result = jobs.run(*args)
    assert result.exit_code == 1, result
    assert "error[not-found]:" in result.stderr
    assert "'nope'" in result.stderr
    assert "  hint: " in result.stderr
    if "-o" in args:
        assert json.loads(result.stdout)["error"]["code"] == "not-found"
