"""core waits, opens files and starts workers only behind one seam each."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO_ROOT
from tests.test_docs import tracked

SEAMS = [
    (
        "quotactl/core/**/*.py",
        "quotactl/core/apply/system.py",
        r"time\.sleep|ThreadPoolExecutor\(|time\.monotonic\(|time\.time\(",
    ),
    (
        "quotactl/core/simulate/*.py",
        "quotactl/core/simulate/io.py",
        r"\bopen\(|\.open\(|tempfile|\.stat\(\)|is_file\(\)|get_context\(|\.Process\(|"
        r"^\s*import (os|sys|subprocess|multiprocessing)$",
    ),
]


@pytest.mark.parametrize(("pattern", "seam", "forbidden"), SEAMS)
def test_only_the_seam_touches_the_machine(pattern: str, seam: str, forbidden: str) -> None:
    found = re.compile(forbidden, re.M)
    sources = tracked(pattern)
    strays = [
        f"{source}:{number}: {line.strip()}"
        for source in sources
        if source != seam
        for number, line in enumerate((REPO_ROOT / source).read_text().splitlines(), 1)
        if found.search(line)
    ]
    assert seam in sources
    assert strays == []
    assert found.search((REPO_ROOT / seam).read_text())  # the pattern still finds the real ones
