"""Every invalid config in tests/config/invalid/ fails `quotactl validate` where it should.

Each case is a directory of YAML files plus ``expected.txt``: a ``# what this case is about``
line, then one ``FILE:LINE:COL: message`` line per expected error (the message may be a
prefix of the printed one). The real CLI must exit 1, print exactly those errors (no more:
one mistake must not cascade into several) on stderr, and never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

CORPUS = Path(__file__).parent / "invalid"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
DIAGNOSTIC = re.compile(r"^(?P<where>[^\s:][^:]*:\d+:\d+): (?P<message>.*)$")


def _expected(case: str) -> list[str]:
    lines = (CORPUS / case / "expected.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_the_corpus_covers_at_least_thirty_mistakes() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES)
def test_invalid_config_fails_at_the_expected_place(
    case: str,
    cli: Callable[..., CliResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(CORPUS / case)
    result = cli("validate", ".")

    assert result.exit_code == 1
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert result.stderr.rstrip().splitlines()[-1].startswith("error[config-invalid]: ")
    errors = [
        line
        for line in result.stderr.splitlines()
        if DIAGNOSTIC.match(line) and ": warning: " not in line
    ]
    expected = _expected(case)
    for want in expected:
        assert any(line.startswith(want) for line in errors), (
            f"expected {want!r} among:\n" + "\n".join(errors)
        )
    assert len(errors) == len(expected), "\n".join(errors)
