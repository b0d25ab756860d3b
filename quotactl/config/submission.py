"""SubmitServiceJob requests checked before they are sent, as AWS Batch checks them.

``submit`` and ``submit --dry-run`` both build their requests with
``quotactl.core.jobs.spec.requests`` and pass them here, so a preview refuses exactly what
the submit refuses. The request is walked through botocore's Batch ``SubmitServiceJob`` input
shape as a server reads it (lengths, ranges, 32-bit integers, the tag map's sizes), and then
through the rules AWS documents beyond the model: a job name of 1-128 letters, digits, ``-``
and ``_`` (https://docs.aws.amazon.com/batch/latest/APIReference/API_SubmitServiceJob.html),
and no tag key starting with ``aws:``, which AWS reserves
(https://docs.aws.amazon.com/tag-editor/latest/userguide/best-practices-and-strats.html).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from quotactl.config.payload import problem_of
from quotactl.config.schema import NAME_PATTERN
from quotactl.errors import SpecInvalidError
from quotactl.servicemodel.walk import Rules, walk

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from botocore.model import Shape

    from quotactl.core.jobs.spec import SubmitRequest

OPERATION = "SubmitServiceJob"
JOB_NAME = re.compile(NAME_PATTERN)
RESERVED_TAG_PREFIX = "aws:"


@functools.cache
def request_shape() -> Shape:
    """The input shape of Batch's SubmitServiceJob, from the installed botocore."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("batch")
    shape = model.operation_model(OPERATION).input_shape
    assert shape is not None
    return shape


def problems_of(params: Mapping[str, Any]) -> list[str]:
    """Every way one SubmitServiceJob request breaks AWS Batch's rules, as messages."""
    found = [problem_of(f).message for f in walk(dict(params), request_shape(), Rules(wire=True))]
    name = params.get("jobName")
    if isinstance(name, str) and not JOB_NAME.fullmatch(name):
        found.append(
            f"jobName {name!r} is invalid: use 1 to 128 letters, digits, hyphens (-) and "
            "underscores (_)"
        )
    for key in params.get("tags") or {}:
        if str(key).lower().startswith(RESERVED_TAG_PREFIX):
            found.append(f"tag key {key!r} is invalid: the aws: prefix is reserved by AWS")
    return found


def check_requests(file: str, batch: Sequence[SubmitRequest]) -> None:
    """Raise ``SpecInvalidError`` naming every problem of the first request AWS would refuse
    (the requests of one submit differ only in their names)."""
    for request in batch:
        found = problems_of(request.params)
        if found:
            raise SpecInvalidError(
                f"{file}: SubmitServiceJob would refuse the request for {request.name!r}: "
                + "; ".join(found),
                hint="nothing was submitted; fix the spec or the options and run again",
            )
