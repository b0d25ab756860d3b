"""Counts agree with their nouns: no message quotactl writes says "job(s)" or "1 jobs".

The emulator's messages are left out: they repeat AWS's own wording ("job queue(s)").
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from quotactl.core.words import count_of

PACKAGE = Path(__file__).resolve().parent.parent / "quotactl"
OWN = [p for p in sorted(PACKAGE.rglob("*.py")) if "emulator" not in p.parts]


def _strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


@pytest.mark.parametrize("path", OWN, ids=[str(p.relative_to(PACKAGE)) for p in OWN])
def test_no_message_hedges_its_plural(path: Path) -> None:
    hedged = [
        (line, text)
        for line, text in _strings(path)
        if re.search(r"[a-z]\(s\)", text) and "MISCONFIGURATION" not in text
    ]
    assert hedged == []


@given(st.integers(0, 10**7), st.sampled_from(["job", "file", "job or resource change"]))
def test_a_count_agrees_with_its_noun(n: int, noun: str) -> None:
    text = count_of(n, noun)
    assert text == (f"1 {noun}" if n == 1 else f"{n:,} {noun}s")
    assert not re.search(r"\b1 \w+s$", text) or noun.endswith("s")
