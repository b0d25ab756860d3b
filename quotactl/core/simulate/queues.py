"""A configuration as the simulator sees it: one ``QueueModel`` per job queue."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from quotactl.core.engine import QueueModel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.desired import DesiredState


def queue_models(desired: DesiredState) -> list[QueueModel]:
    """Every queue of the config as the engine sees it; a disabled queue or environment takes
    no jobs, so its shares are marked disabled (trace rows for them are errors)."""
    environments = {e.name: e for e in desired.environments}
    models = []
    for spec in desired.queues:
        model = QueueModel.from_desired(desired, spec.name)
        env = environments.get(spec.environment)
        if not spec.enabled or env is None or not env.enabled:
            model = replace(model, shares=tuple(replace(s, enabled=False) for s in model.shares))
        models.append(model)
    return models


def routes(queues: Sequence[QueueModel], *, every_share: bool = False) -> dict[str, str]:
    """Trace ``share`` values that take jobs in this config, to their ``queue/share`` name
    (``every_share``: disabled shares too)."""
    found: dict[str, str] = {}
    for queue in queues:
        for share in queue.shares:
            if share.enabled or every_share:
                qualified = f"{queue.name}/{share.name}"
                found[qualified] = qualified
                if len(queues) == 1:
                    found[share.name] = qualified
    return found
