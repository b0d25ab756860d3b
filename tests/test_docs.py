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


CITATION = re.compile(
    r"§"  # a section sign: "§6", "§ 6", "SPEC §2.3"
    r"|\bSTYLE\b"  # "STYLE habit 4", "STYLE.md" (the constant STYLES is fine)
    r"|\bSPEC(?:\.md\b|\s+(?:section\s*)?\d)"  # "SPEC.md", "SPEC 6" (not JOBSPEC)
    r"|\bhabit\s+\d"  # "habit 4"
    r"|\breference/\S*\.md"  # "reference/aws-batch-quota-management.md"
    r"|\.\./shared\b|/work/shared\b|\bshared/(?:reference|STYLE)"  # "../shared"
    r"|codebases-to-imitate"
    r"|\[(?:API|UG)-[\w-]+\]"  # a tag of an outside reference list: "[API-DeleteQS]"
)
"""How a line cites a document outside the repository (a URL to AWS's docs is fine)."""
CITED = ["SPEC §6", "§6", "§ 6", "STYLE habit 4", "STYLE.md", "SPEC.md", "see SPEC 6", "habit 2"]
CITED += ["reference/aws-batch-quota-management.md §2.3", "../shared", "codebases-to-imitate"]
CITED += ["[API-DeleteQS]"]
NOT_CITED = ["JOBSPEC", "a job spec", "STYLES[action]", "QUOTACTL_PIP_SPEC"]
NOT_CITED += ["https://docs.aws.amazon.com/batch/latest/userguide/quota-management.html"]


@pytest.mark.parametrize("text", CITED)
def test_the_citation_pattern_catches_every_form(text: str) -> None:
    assert CITATION.search(f"# as {text} says")


@pytest.mark.parametrize("text", NOT_CITED)
def test_the_citation_pattern_lets_ordinary_words_through(text: str) -> None:
    assert not CITATION.search(f"# as {text} says")


def test_nothing_cites_the_engineers_private_files() -> None:
    """Code, comments, ruff.toml headers, help, tests, configs and docs point at docs/, never
    at a document outside the repository."""
    files = tracked(
        "quotactl/**",
        "configs/**",
        "docs/**",
        "tests/**",
        ".ci/**",
        "README.md",
        "CHANGELOG.md",
        "pyproject.toml",
    )
    files = [f for f in files if f != "tests/test_docs.py"]  # the patterns themselves
    offenders = [
        f"{name}:{number}: {line.strip()}"
        for name in files
        for number, line in enumerate((REPO_ROOT / name).read_text(errors="ignore").splitlines(), 1)
        if CITATION.search(line)
    ]
    assert offenders == []
