"""The shape of the house, held by tests where no linter can: nothing below cli reads the
environment, render declares no stand-in for a type it draws, and every command is thin."""

from __future__ import annotations

import ast
import re

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "quotactl"
MAX_BODY = 40
"""Lines of a command's body, its docstring and options aside."""


@pytest.mark.parametrize("layer", ["core", "api", "render", "config"])
def test_nothing_below_cli_reads_the_environment(layer: str) -> None:
    readers = re.compile(r"\bos\.environ\b|\bgetenv\(")
    found = [
        f"{path.relative_to(REPO_ROOT)}:{n}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if readers.search(line) and not line.lstrip().startswith(("#", '"', "``"))
    ]
    assert found == []


def test_render_declares_no_protocol_in_place_of_the_type_it_draws() -> None:
    found = [
        str(path.relative_to(REPO_ROOT))
        for path in sorted((PACKAGE / "render").rglob("*.py"))
        if re.search(r"\bProtocol\b", path.read_text())
    ]
    assert found == []


def command_bodies() -> list[tuple[str, int]]:
    """(module:function, lines) of every command: a function taking a typer ``ctx`` first."""
    found = []
    for path in sorted((PACKAGE / "cli").glob("*_commands.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef) or not node.args.args:
                continue
            if node.args.args[0].arg != "ctx":
                continue
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            if body:
                lines = (body[-1].end_lineno or 0) - body[0].lineno + 1
                found.append((f"{path.name}:{node.name}", lines))
    return found


def test_every_command_body_is_at_most_forty_lines() -> None:
    bodies = command_bodies()
    assert len(bodies) >= 30  # every command was found
    assert [(name, n) for name, n in bodies if n > MAX_BODY] == []
