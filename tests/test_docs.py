"""The repository documents itself: links resolve, every error code is in the reference, and
nothing cites files that live outside the repository."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE = re.compile(r"""\bcode\s*=\s*["']([a-z][a-z0-9-]*)["']""")


def tracked(*patterns: str) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *patterns],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in listed.stdout.splitlines() if (REPO_ROOT / line).is_file()]


@pytest.mark.parametrize("page", ["README.md", *sorted(tracked("docs/*.md", "configs/*.md"))])
def test_every_relative_link_resolves(page: str) -> None:
    path = REPO_ROOT / page
    broken = [
        target
        for target in LINK.findall(path.read_text())
        if "://" not in target and not (path.parent / target).exists()
    ]
    assert broken == []


def test_the_readme_links_the_reference() -> None:
    assert "docs/README.md" in (REPO_ROOT / "README.md").read_text()


def test_every_error_code_is_documented() -> None:
    codes = {
        code
        for source in tracked("quotactl/*.py", "quotactl/**/*.py")
        for code in CODE.findall((REPO_ROOT / source).read_text())
    }
    reference = (DOCS / "commands.md").read_text()
    undocumented = sorted(code for code in codes if f"| `{code}` |" not in reference)
    assert codes, "no error codes found: the pattern is out of date"
    assert undocumented == []


def test_nothing_cites_the_engineers_private_files() -> None:
    """Code, tests, help, configs and docs point at docs/, never at a spec outside the
    repository."""
    cited = re.compile(r"SPEC §|reference §|SPEC\.md|shared/reference")
    files = tracked("quotactl/**", "configs/**", "docs/**", "tests/**", "README.md", "CHANGELOG.md")
    files = [f for f in files if f != "tests/test_docs.py"]  # the pattern itself
    offenders = [f for f in files if cited.search((REPO_ROOT / f).read_text(errors="ignore"))]
    assert offenders == []
