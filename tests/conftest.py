"""Fixtures every test package may use: the real CLI with captured streams, the repo root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from quotactl.cli.app import run
from quotactl.core.engine import parse_timing

# The suite's scheduling tests reason about decisions, not start-up: their emulators (in this
# process and in every `local serve` or `quotactl` subprocess) start jobs with no SCHEDULED or
# STARTING time, and stop preempted or terminated jobs at once. Tests of the default timing
# model unset it (tests/emulator/test_simulate_agreement.py, test_jobs_serve.py).
os.environ["QUOTACTL_EMULATOR_TIMING"] = "scheduled=0,starting=0,preemption=0,termination=0"
TEST_TIMING = parse_timing(os.environ["QUOTACTL_EMULATOR_TIMING"])
"""That timing as a value, for tests that build an emulator or run an engine themselves: the
environment is read by the CLI's Runtime only, so they pass it."""


if TYPE_CHECKING:
    from collections.abc import Callable

VARIANT_VARIABLE = "QUOTACTL_EMULATOR_VARIANT"
TEST_VARIANT: str | None = None
"""The emulator variant the suite runs under (``--emulator-variant``; None: default). Set for
the CLI's Runtime and every subprocess through the environment; tests that build an emulator
themselves pass ``emulator_variant()``."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--emulator-variant",
        choices=("default", "strict"),
        default="default",
        help="run the emulator's tests under this variant (docs/emulator.md): strict takes, "
        "wherever AWS is silent, the reading least convenient to a client",
    )


def pytest_configure(config: pytest.Config) -> None:
    global TEST_VARIANT
    chosen = config.getoption("--emulator-variant")
    TEST_VARIANT = "strict" if chosen == "strict" else None
    if TEST_VARIANT is None:
        os.environ.pop(VARIANT_VARIABLE, None)
    else:
        os.environ[VARIANT_VARIABLE] = TEST_VARIANT


def emulator_variant() -> str | None:
    """The variant chosen with ``--emulator-variant`` (None: the state file's, default)."""
    return TEST_VARIANT


REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class CliResult:
    """What a user sees: the exit code and both streams."""

    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``quotactl ARGS...`` in-process through the real error boundary (``run``)."""

    def invoke(*args: str) -> CliResult:
        code = run(list(args))
        captured = capsys.readouterr()
        return CliResult(int(code), captured.out, captured.err)

    return invoke


@pytest.fixture
def repo_root() -> Path:
    """The checkout's root, for tests that read configs/ and other checked-in files."""
    return REPO_ROOT
