"""The value types of options that several commands share, for the CLI to build its options
from (the CLI imports ``quotactl.api`` and ``quotactl.render`` only)."""

from __future__ import annotations

from quotactl.core.durations import DurationError, format_duration, parse_duration
from quotactl.core.outputs import Output, ReportOutput, StatusOutput

__all__ = [
    "DurationError",
    "Output",
    "ReportOutput",
    "StatusOutput",
    "format_duration",
    "parse_duration",
]
