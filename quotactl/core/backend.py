"""The seam between planning/applying and the place resources live (Terraform's provider interface).

``quotactl.aws.backend.AwsBackend`` implements it over boto3 for real AWS, an endpoint and the
embedded emulator alike; tests implement it in memory. Every method is safe to call from
several threads at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from quotactl.core.resources.observed import (
        LiveJob,
        ObservedResource,
        ObservedState,
        Ref,
        ResourceStatus,
        Spec,
    )


class StateReader(Protocol):
    """What planning needs: the live resources, and the live jobs of some queues."""

    def observe(self, stack: str, queues: Collection[str]) -> ObservedState:
        """All environments, policies and queues; shares of ``queues`` and of the stack's queues."""
        ...

    def live_jobs(self, queues: Collection[str]) -> tuple[LiveJob, ...]:
        """Jobs not yet finished on ``queues`` (for the runtime impact of a plan)."""
        ...


class Backend(StateReader, Protocol):
    """What apply and import need besides reading."""

    def create(self, spec: Spec) -> str:
        """Create the resource (with its tags) and return its ARN; AlreadyExistsError if taken."""
        ...

    def update(self, before: Spec, after: Spec, arn: str, fields: frozenset[str]) -> None:
        """Change the top-level ``fields`` (``tags`` included) of a live resource to ``after``."""
        ...

    def set_enabled(self, ref: Ref, arn: str, enabled: bool) -> None:
        """ENABLE or DISABLE (AWS requires DISABLED before a delete)."""
        ...

    def delete(self, ref: Ref, arn: str) -> None: ...

    def tag(self, arn: str, tags: Mapping[str, str]) -> None:
        """Add tags to a resource (``import`` adopts one by adding the stack tag)."""
        ...

    def describe(self, ref: Ref) -> ObservedResource | None:
        """One resource as it is now, or None if it does not exist."""
        ...

    def statuses(self, refs: Collection[Ref]) -> Mapping[Ref, ResourceStatus | None]:
        """Lifecycle of many resources in as few calls as possible; None for those gone."""
        ...


CLOCK_HEADER = "x-quotactl-emulated-time"
"""A response header of every successful answer of the emulated account: its emulated clock
(epoch ms) when it computed the answer. AWS sends none; readers take the account's own time
from it (GetJobQueueSnapshot's ``lastUpdatedAt`` is when the queue last changed, not now)."""
