"""A command's API calls at two sizes of the same account: only the pages of the job lists
grow with the number of waiting jobs; nothing else does (no call per job, no call per page
beyond the page itself). docs/performance.md has the budget at 10,000 jobs."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import run
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

DEMO = "configs/demo"
SHARES = ("nlp", "research", "vision-experiments")
P5 = "ml.p5.48xlarge"
PAGE = 100


def calls(stderr: str) -> Counter[str]:
    """The ``--debug`` line: ``quotactl: N API calls (Op n, Op n)``."""
    (line,) = [ln for ln in stderr.splitlines() if " API calls (" in ln]
    inside = line.split(" API calls (", 1)[1].rstrip(")")
    return Counter({op: int(n) for op, n in re.findall(r"(\w+) (\d+)", inside)})


def account(tmp_path: Path, repo_root: Path, waiting: int) -> Path:
    """The demo platform with every p5 busy and ``waiting`` more jobs that never started."""
    state = tmp_path / f"state-{waiting}.db"
    assert run(["-q", "--state", str(state), "apply", str(repo_root / DEMO), "--auto-approve"]) == 0
    with Emulator(state, timing=TEST_TIMING) as emulator:
        for i in range(8 + waiting):  # 8 run (the p5 pool), the rest wait
            emulator.call(
                "SubmitServiceJob",
                {
                    "jobName": f"job-{i}",
                    "jobQueue": "training",
                    "serviceJobType": "SAGEMAKER_TRAINING",
                    "serviceRequestPayload": payload(P5, 1, 86_400),
                    "quotaShareName": SHARES[i % len(SHARES)],
                },
            )
            if i == 7:
                emulator.advance(60.0)
        emulator.advance(60.0)
    return state


COMMANDS = {
    "status": ["status"],
    "status -o json": ["status", "-o", "json"],
    "jobs": ["jobs"],
    "jobs --status RUNNABLE": ["jobs", "--status", "RUNNABLE"],
    "plan": ["plan", DEMO],
}


@pytest.mark.slow
def test_calls_grow_only_by_the_pages_of_the_job_lists(
    cli: Callable[..., CliResult], tmp_path: Path, repo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo_root)
    small, large = 150, 750
    states = {n: account(tmp_path, repo_root, n) for n in (small, large)}
    for name, command in COMMANDS.items():
        seen: dict[int, Counter[str]] = {}
        for n, state in states.items():
            result = cli("--state", str(state), "-q", "--debug", *command)
            assert result.exit_code in (0, 2), (name, result.stderr)
            seen[n] = calls(result.stderr)
        grown = seen[large] - seen[small]
        # one page a hundred jobs, and each share's list may end one page later
        pages = math.ceil((large - small) / PAGE) + len(SHARES)
        assert set(grown) <= {"ListServiceJobs"}, (name, seen)
        assert grown["ListServiceJobs"] <= pages, (name, seen)
        if name.startswith("jobs"):  # no per-job describe without --wide
            assert seen[large]["DescribeServiceJob"] == 0, (name, seen)
