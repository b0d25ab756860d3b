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
from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

FAULTS_VARIABLE = "QUOTACTL_EMULATOR_FAULTS"
"""Faults the emulator injects (``latency_ms=20,throttle=0.2,...``; docs/emulator.md)."""

VARIANT_VARIABLE = "QUOTACTL_EMULATOR_VARIANT"
"""The embedded emulator's variant, ``default`` or ``strict`` (docs/emulator.md)."""
VARIANTS = ("default", "strict")


@dataclass(frozen=True)
class EmulatorSettings:
    """The emulator's phase times (``QUOTACTL_EMULATOR_TIMING``), injected faults and
    variant (``QUOTACTL_EMULATOR_VARIANT``; None: the state file's)."""

    timing: Timing = TIMING
    faults: str | None = None
    variant: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> EmulatorSettings:
        """The settings ``environ`` holds (a bad timing is ``usage``, at once)."""
        variant = environ.get(VARIANT_VARIABLE) or None
        if variant is not None and variant not in VARIANTS:
            raise UsageError(
                f"{VARIANT_VARIABLE}={variant!r} is no emulator variant",
                hint=f"set it to one of: {', '.join(VARIANTS)} (or unset it)",
            )
        return cls(
            timing=parse_timing(environ.get(TIMING_VARIABLE)),
            faults=environ.get(FAULTS_VARIABLE) or None,
            variant=variant,
        )
