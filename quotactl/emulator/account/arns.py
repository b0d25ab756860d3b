"""ARNs and ids in AWS Batch's formats, and the name-or-ARN lookups every handler needs.

Formats: ``arn:<partition>:batch:<region>:<account>:<kind>/<name>``; a quota share is
``<jobQueueArn>/quota-share/<name>``; a service job is ``...:service-job/<uuid>``. An ARN of
another partition, region or account names nothing in the emulated account: lookups answer
"does not exist", as AWS does for a resource it does not hold.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")
_ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):batch:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):"
    r"(?P<kind>scheduling-policy|service-environment|job-queue|service-job)/(?P<rest>.+)"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Account:
    """The emulated account: every ARN it hands out carries these two."""

    account_id: str = "123456789012"
    region: str = "us-east-1"

    @property
    def partition(self) -> str:
        """AWS's partition of the region (``aws-cn`` for China, ``aws-us-gov`` for GovCloud)."""
        for prefix, partition in (("cn-", "aws-cn"), ("us-gov-", "aws-us-gov")):
            if self.region.startswith(prefix):
                return partition
        return "aws"

    def arn(self, kind: str, name: str) -> str:
        return f"arn:{self.partition}:batch:{self.region}:{self.account_id}:{kind}/{name}"

    def owns(self, value: str) -> bool:
        """False for an ARN of another partition, region or account (a plain name is ours)."""
        if not value.startswith("arn:"):
            return True
        parsed = parse_arn(value)
        return parsed is not None and (parsed.partition, parsed.region, parsed.account) == (
            self.partition,
            self.region,
            self.account_id,
        )

    def share_arn(self, queue_arn: str, name: str) -> str:
        return f"{queue_arn}/quota-share/{name}"

    def training_job_arn(self, name: str) -> str:
        return f"arn:{self.partition}:sagemaker:{self.region}:{self.account_id}:training-job/{name}"


@dataclass(frozen=True)
class ParsedArn:
    kind: str
    name: str
    share: str | None = None  # set for quota-share ARNs (kind == "quota-share")
    partition: str = "aws"
    region: str = ""
    account: str = ""


def parse_arn(value: str) -> ParsedArn | None:
    """The kind and name of a Batch ARN, or None if ``value`` is not one."""
    match = _ARN.fullmatch(value)
    if match is None:
        return None
    kind, rest = match["kind"], match["rest"]
    where = {
        "partition": match["partition"],
        "region": match["region"],
        "account": match["account"],
    }
    if kind == "job-queue" and "/quota-share/" in rest:
        queue, _, share = rest.partition("/quota-share/")
        if NAME.fullmatch(queue) and NAME.fullmatch(share):
            return ParsedArn("quota-share", queue, share, **where)
        return None
    if kind == "service-job":
        return ParsedArn(kind, rest, **where) if _UUID.fullmatch(rest) else None
    return ParsedArn(kind, rest, **where) if NAME.fullmatch(rest) else None


def name_or_arn(value: str, kind: str) -> str | None:
    """The resource name meant by ``value`` (a plain name or an ARN of ``kind``), else None."""
    if value.startswith("arn:"):
        parsed = parse_arn(value)
        if parsed is None or parsed.kind != kind:
            return None
        return parsed.name
    return value if NAME.fullmatch(value) else None


def job_id_of(value: str) -> str | None:
    """The job id in a job id or job ARN (the SDK passes ARNs as ``jobId``), else None."""
    if value.startswith("arn:"):
        parsed = parse_arn(value)
        return parsed.name if parsed is not None and parsed.kind == "service-job" else None
    return value if _UUID.fullmatch(value) else None


def new_job_id() -> str:
    return str(uuid.uuid4())
