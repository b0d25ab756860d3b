"""What the process environment says of the embedded emulator, read once per command.

The CLI's ``Runtime`` makes one ``EmulatorSettings`` from its environment and hands it on:
the timing to ``connect`` (so the emulator, previews and estimates agree) and to the offline
replays (``simulate``, ``tune``), the faults to the emulator. Nothing below the CLI reads
``os.environ``; a library caller passes what it wants, or takes the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.engine.model import TIMING, TIMING_VARIABLE, Timing, parse_timing

if TYPE_CHECKING:
    from collections.abc import Mapping

FAULTS_VARIABLE = "QUOTACTL_EMULATOR_FAULTS"
"""Faults the emulator injects (``latency_ms=20,throttle=0.2,...``; docs/emulator.md)."""


@dataclass(frozen=True)
class EmulatorSettings:
    """The emulator's phase times (``QUOTACTL_EMULATOR_TIMING``) and injected faults."""

    timing: Timing = TIMING
    faults: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> EmulatorSettings:
        """The settings ``environ`` holds (a bad timing is ``usage``, at once)."""
        return cls(
            timing=parse_timing(environ.get(TIMING_VARIABLE)),
            faults=environ.get(FAULTS_VARIABLE) or None,
        )
