"""The JSON documents the reference describes are the ones the commands print.

For each command with a documented ``-o json`` shape, the command runs on the emulator (the
demo applied, jobs submitted and run) and every field name it prints must appear in the
documented shape on its page, and every documented top-level field must be printed. A field
added to a command without its documentation, or documented and then renamed, fails here.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DOCS = REPO_ROOT / "docs"
DEMO = REPO_ROOT / "configs" / "demo"
JOBSPEC = REPO_ROOT / "configs" / "jobs" / "fine-tune.yaml"
# A quoted name that is a key: not a value after ':' and not an alternative after '|'.
KEY = re.compile(r'(?<![:|]\s)(?<![:|])"([A-Za-z_][A-Za-z0-9_]*)"')
OPAQUE = {"payload", "tags", "summary", "capacity", "jobs_by_status", "api_calls"}
"""Members whose keys are data (a request, tags, actions, instance types), not fields."""


def code_blocks(page: str) -> list[str]:
    """The fenced code blocks of ``page``, in order."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in (DOCS / page).read_text().splitlines():
        if line.lstrip().startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append("\n".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def block_with(page: str, marker: str) -> str:
    for block in code_blocks(page):
        if marker in block:
            return block
    raise AssertionError(f"no code block with {marker!r} in docs/{page}")


def documented_keys(page: str, marker: str) -> set[str]:
    """Every field name in the first code block of ``page`` that contains ``marker``."""
    code = "\n".join(line.split(" # ", 1)[0] for line in block_with(page, marker).splitlines())
    return set(KEY.findall(code))


def printed_keys(document: Any, top: bool = True) -> Iterator[str]:
    if isinstance(document, dict):
        for key, value in document.items():
            if re.fullmatch(r"ml\.[a-z0-9.]+|[A-Z_]+", key):  # instance types, AWS statuses
                continue
            yield key
            if key not in OPAQUE:
                yield from printed_keys(value, False)
    elif isinstance(document, list):
        for item in document:
            yield from printed_keys(item, False)


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working directory with the demo applied and jobs run, some borrowing."""
    from quotactl.cli.app import run

    root = tmp_path_factory.mktemp("docs-json")
    state = str(root / "emulator.db")
    for args in (
        ["apply", str(DEMO), "--auto-approve"],
        ["submit", str(JOBSPEC), "--count", "6"],
        ["local", "advance", "10m"],
    ):
        assert run(["-q", "--state", state, *args]) == 0, args
    return root


def run_json(cli: Cli, account: Path, *args: str) -> Any:
    result = cli("-q", "--state", str(account / "emulator.db"), *args, "-o", "json")
    assert result.exit_code in (0, 2), result.stderr
    return json.loads(result.stdout)


CASES: dict[str, tuple[str, str, list[str]]] = {
    "status": ("status.md", '"borrowing"', ["status"]),
    "plan": ("plan-and-apply.md", '"fingerprint"', ["plan", str(DEMO)]),
    "jobs": ("jobs.md", "jobs:", ["jobs"]),
    "usage": ("usage.md", '"guarantee_miss_hours"', ["usage", str(DEMO), "--since", "1h"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_printed_field_is_documented(name: str, cli: Cli, account: Path) -> None:
    page, marker, args = CASES[name]
    documented = documented_keys(page, marker)
    document = run_json(cli, account, *args)
    undocumented = sorted(set(printed_keys(document)) - documented)
    assert undocumented == [], f"docs/{page} does not describe {undocumented}"
    missing = sorted(k for k in documented_top(page, marker) if k not in document)
    assert missing == [], f"docs/{page} documents {missing}, which `{name}` does not print"


def documented_top(page: str, marker: str) -> set[str]:
    """The documented top-level fields (those that every document of the shape has)."""
    try:
        return set(json.loads(block_with(page, marker))) - {"signature"}  # signed with a key
    except ValueError:
        return {"format_version"}


def test_the_error_document_is_the_documented_one(cli: Cli) -> None:
    result = cli("plan", "/nonexistent", "-o", "json")
    assert set(printed_keys(json.loads(result.stdout))) == documented_keys("commands.md", '"error"')


def test_job_why_and_a_dry_run_print_documented_fields(cli: Cli, account: Path) -> None:
    documented = documented_keys("jobs.md", "jobs:")
    job_id = run_json(cli, account, "jobs")["jobs"][0]["job_id"]
    for document in (
        run_json(cli, account, "job", "why", job_id),
        run_json(cli, account, "job", "describe", job_id),
        run_json(cli, account, "submit", str(JOBSPEC), "--dry-run"),
    ):
        assert sorted(set(printed_keys(document)) - documented) == []


def test_simulate_prints_the_documented_fields(cli: Cli, tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    assert cli("trace", "generate", str(DEMO), "--jobs", "200", "--out", str(trace)).exit_code == 0
    result = cli(
        "simulate", str(DEMO), "--trace", str(trace), "--baseline", "reserve", "-o", "json"
    )
    documented = documented_keys("review.md", '"comparison"')
    assert sorted(set(printed_keys(json.loads(result.stdout))) - documented) == []
