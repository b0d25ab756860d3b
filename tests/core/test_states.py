"""Every status value is spelled once, in ``quotactl/core/states.py``: anywhere else in the
package a quoted status literal is a second copy of the vocabulary, and fails this test."""

from __future__ import annotations

import re
from pathlib import Path

from quotactl.core.states import JobStatus, LifecycleStatus, State

PACKAGE = Path(__file__).resolve().parents[2] / "quotactl"
VALUES = sorted({*JobStatus, *LifecycleStatus, *State})
LITERAL = re.compile(r"""(["'])(""" + "|".join(VALUES) + r""")\1""")


def literals_outside_states(root: Path) -> list[str]:
    """``path:line: "VALUE"`` for each quoted status value in a module other than states.py."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == root / "core" / "states.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found += [
                f"{path.relative_to(root)}:{number}: {m.group(0)}" for m in LITERAL.finditer(line)
            ]
    return found


def test_no_status_value_is_spelled_outside_core_states() -> None:
    assert literals_outside_states(PACKAGE) == []


def test_the_guard_finds_a_spelled_status(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "states.py").write_text('RUNNING = "RUNNING"\n')
    (tmp_path / "stray.py").write_text("if job['status'] == 'RUNNABLE' or s == \"DELETED\":\n")
    assert literals_outside_states(tmp_path) == ["stray.py:1: 'RUNNABLE'", 'stray.py:1: "DELETED"']


def test_wait_codes_keep_their_documented_spelling() -> None:
    from quotactl.core.jobs.analysis import WaitCode

    assert [str(c) for c in WaitCode] == [
        "misconfigured",
        "share-at-limit",
        "borrow-limit",
        "no-idle-capacity",
        "behind",
        "starting",
        "over-budget",
    ]
