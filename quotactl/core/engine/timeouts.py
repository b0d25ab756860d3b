"""A queue's runnable timeout (AWS's ``jobStateTimeLimitActions``): when a RUNNABLE job is
terminated for keeping a statusReason too long.

One rule for the engine (MISCONFIGURATION reasons, which it decides: ``simulate`` and the
previews) and the emulator (every reason, CAPACITY ones included): a job whose statusReason
starts with an action's ``reason`` since ``since`` is terminated ``maxTimeSeconds`` later,
FAILED with ``reasons.time_limit(reason)``; the first matching action counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

Limits = tuple[tuple[str, float], ...]
"""Per statusReason prefix, the seconds a RUNNABLE job may keep it (``QueueModel.time_limits``)."""


def deadline(
    reason: str | None, since: float, limits: Sequence[tuple[str, float]]
) -> tuple[float, str] | None:
    """When a RUNNABLE job with ``reason`` since ``since`` is terminated, and the action's
    reason; None if no action applies."""
    if not reason:
        return None
    for prefix, seconds in limits:
        if reason.startswith(prefix):
            return since + seconds, prefix
    return None
