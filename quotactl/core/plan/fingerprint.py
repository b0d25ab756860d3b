"""A stable hash of the live state a plan was computed from (the stale-plan check).

It covers every resource the plan could touch: those tagged with the stack, and those the
configuration names. It leaves out lifecycle status (a CREATING resource that became VALID
does not make a plan wrong) and jobs (they come and go all the time; impact is advisory).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from quotactl.core.resources.attributes import attributes

if TYPE_CHECKING:
    from collections.abc import Collection

    from quotactl.core.resources.observed import ObservedState


def fingerprint(observed: ObservedState, stack: str, scope: Collection[str]) -> str:
    """``sha256:<hex>`` of the canonical JSON of the resources in the plan's reach."""
    wanted = set(scope)
    rows = sorted(
        [r.address, r.arn, attributes(r.spec, policy_type=r.policy_type)]
        for r in observed.present().values()
        if r.stack == stack or r.address in wanted
    )
    canonical = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
