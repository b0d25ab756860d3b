"""docs/library.md's example runs as written and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from typing import TYPE_CHECKING

import quotactl
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    import pytest

PAGE = REPO_ROOT / "docs" / "library.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def _example() -> tuple[str, str]:
    """The page's last Python block and the plain block that follows it (its output)."""
    blocks = BLOCK.findall(PAGE.read_text())
    index = max(i for i, (lang, _) in enumerate(blocks) if lang == "python")
    return blocks[index][1], blocks[index + 1][1]


def test_the_library_example_runs_and_prints_what_the_page_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, expected = _example()
    monkeypatch.chdir(REPO_ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {"__name__": "library_example"})
    assert out.getvalue() == expected


def test_every_name_quotactl_api_offers_resolves() -> None:
    """A name in ``__all__`` is loaded on first use; none is shadowed by a submodule."""
    assert sorted(quotactl.api._MODULE_OF) == sorted(quotactl.api.__all__)
    for name in quotactl.api.__all__:
        value = getattr(quotactl.api, name)
        assert not isinstance(value, type(quotactl)), name
    assert quotactl.connect is quotactl.api.connect
