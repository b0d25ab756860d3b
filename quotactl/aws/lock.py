"""The apply lock in AWS Batch itself: a scheduling policy named ``quotactl-lock-<stack>``.

Why a scheduling policy: quotactl already calls its API; AWS keeps scheduling-policy names
unique per account and region, so CreateSchedulingPolicy is an atomic test-and-set (a second
create answers "Object already exists"); a policy carries tags (holder, command, expiry) at
creation; it has no lifecycle status to wait for, holds no capacity and costs nothing. The
lock policy has no stack tag and is filtered out of every read (``AwsBackend``), so plans,
export and status never show it and no plan ever deletes it.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from quotactl.core.apply.lock import ID_TAG, LOCK_TAG
from quotactl.errors import BackendError, LockNameTakenError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.aws.calls import BatchCalls

LOCK_PREFIX = "quotactl-lock-"
MAX_NAME = 128


def lock_name(stack: str) -> str:
    """The lock policy's name; long stack names keep a hash so the name stays unique."""
    name = LOCK_PREFIX + stack
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(stack.encode()).hexdigest()[:16]
    return f"{name[: MAX_NAME - 17]}-{digest}"


class BatchLockStore:
    """The stack lock's ``LockStore`` over CreateSchedulingPolicy and DeleteSchedulingPolicy."""

    def __init__(self, api: BatchCalls) -> None:
        self.api = api
        self._arns: dict[str, str] = {}

    def create(self, stack: str, tags: Mapping[str, str]) -> bool:
        try:
            out = self.api.call("CreateSchedulingPolicy", name=lock_name(stack), tags=dict(tags))
        except BackendError as exc:
            if "already exists" in exc.message.lower():
                # botocore may have resent a create whose answer was lost: a lock that
                # exists with this acquisition's own id is ours
                self._arns.pop(stack, None)
                found = self.read(stack)
                return found is not None and found.get(ID_TAG) == tags.get(ID_TAG)
            raise
        self._arns[stack] = str(out["arn"])
        return True

    def read(self, stack: str) -> Mapping[str, str] | None:
        arn = self._arn(stack)
        if arn is None:
            return None
        found = self.api.call("DescribeSchedulingPolicies", arns=[arn])["schedulingPolicies"]
        if not found:
            return None
        tags: dict[str, str] = dict(found[0].get("tags") or {})
        if LOCK_TAG not in tags:
            raise LockNameTakenError(
                f"scheduling policy {lock_name(stack)} exists but is not a quotactl lock",
                hint="quotactl keeps the apply lock under that name: rename or delete that policy",
            )
        return tags

    def renew(self, stack: str, tags: Mapping[str, str]) -> None:
        arn = self._arn(stack)
        if arn is not None:
            self.api.call("TagResource", resourceArn=arn, tags=dict(tags))

    def delete(self, stack: str) -> None:
        arn = self._arn(stack)
        if arn is None:
            return
        try:
            self.api.call("DeleteSchedulingPolicy", arn=arn)
        except BackendError as exc:
            if exc.retryable:
                raise
            if self._find(stack) is not None:  # still there: a real failure
                raise
        self._arns.pop(stack, None)

    def _arn(self, stack: str) -> str | None:
        return self._arns.get(stack) or self._find(stack)

    def _find(self, stack: str) -> str | None:
        suffix = f":scheduling-policy/{lock_name(stack)}"
        for item in self.api.pages("ListSchedulingPolicies", "schedulingPolicies"):
            arn = str(item.get("arn", ""))
            if arn.endswith(suffix):
                self._arns[stack] = arn
                return arn
        self._arns.pop(stack, None)
        return None
