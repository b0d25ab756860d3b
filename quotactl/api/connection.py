"""``connect``: the account object for a backend, built by ``quotactl.aws`` (the only place that
builds boto3 sessions and clients).

This module imports nothing heavy at module level: the CLI reads its defaults at start-up.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.aws.account import Account
    from quotactl.aws.session import Retries
    from quotactl.core.engine import Timing

DEFAULT_STATE = Path(".quotactl") / "emulator.db"
"""The emulator's state file when none is given."""
BACKENDS = ("local", "aws")


def connect(
    backend: str = "local",
    *,
    state: Path | str = DEFAULT_STATE,
    profile: str | None = None,
    region: str | None = None,
    endpoint_url: str | None = None,
    faults: str | None = None,
    timing: Timing | None = None,
    variant: str | None = None,
    connect_timeout: float | None = None,
    read_timeout: float | None = None,
    max_attempts: int | None = None,
    retries: Retries | None = None,
    notice: Callable[[str], None] | None = None,
    clock: Callable[[], float] = time.time,
) -> Account:
    """An account object over one Batch client: ``backend="local"`` is the embedded emulator
    over the ``state`` file (or ``endpoint_url``, e.g. a ``quotactl local serve``), ``"aws"``
    the standard credential chain with ``profile`` and ``region``. ``faults`` and ``timing``
    (how long jobs are SCHEDULED and STARTING) set up the embedded emulator, and ``variant``
    (``"default"`` or ``"strict"``; None: the state file's) chooses its readings.

    ``notice`` receives informational lines (the CLI prints them on stderr); ``clock`` stamps
    live reads. Close the account (or use it as a context manager) when done.
    """
    from quotactl.aws.account import Account
    from quotactl.aws.session import Target

    if backend not in BACKENDS:
        raise UsageError(
            f"unknown backend {backend!r}", hint=f"choose one of: {', '.join(BACKENDS)}"
        )
    limits: dict[str, Any] = {
        "connect_timeout": connect_timeout,
        "read_timeout": read_timeout,
        "max_attempts": max_attempts,
    }
    target = Target(
        backend=backend,
        state_path=Path(state),
        profile=profile,
        region=region,
        endpoint_url=endpoint_url,
        faults=faults,
        timing=timing,
        variant=variant,
        **{k: v for k, v in limits.items() if v is not None},
    )
    if notice is None:
        return Account(target, retries=retries, clock=clock)
    return Account(target, retries=retries, notice=notice, clock=clock)
