"""A validated job spec and the SubmitServiceJob requests it becomes (pure, no I/O).

Both spec forms (friendly and raw CreateTrainingJob) end up as a ``JobSpec``: the
CreateTrainingJob payload plus quotactl's defaults (queue, share, priority, ...). ``requests``
turns it and the command line into one SubmitServiceJob request per job, each with its own
client token, so that a retried request is never a second job.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.errors import SpecInvalidError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

MAX_PAYLOAD_BYTES = 10 * 1024
"""SubmitServiceJob's limit on serviceRequestPayload (10 KiB)."""
MAX_COUNT = 1000
DURATION_TAG = "quotactl:duration"
"""The tag that tells the emulator (and a trace export) how long a job runs."""
DEFAULT_MAX_RUNTIME = 86_400.0
"""SageMaker's default ``StoppingCondition.MaxRuntimeInSeconds``: one day."""
MAX_JOB_NAME = 128
MAX_TRAINING_JOB_NAME = 63
SAGEMAKER_TRAINING = "SAGEMAKER_TRAINING"


@dataclass(frozen=True)
class JobSpec:
    """One job spec file, checked: the payload to send and the defaults it names."""

    file: str
    form: str  # "friendly" | "raw"
    payload: Mapping[str, Any]
    instances: Mapping[str, int]
    queue: str | None = None
    share: str | None = None
    priority: int | None = None
    name: str | None = None
    preemption_retries: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SubmitOptions:
    """What the command line adds to (or overrides in) the spec."""

    queue: str | None = None
    share: str | None = None
    priority: int | None = None
    name: str | None = None
    count: int = 1
    start_index: int = 1
    """The first ``-N`` suffix (``--start-index``), so that a second run continues the names."""
    preemption_retries: int | None = None
    timeout_seconds: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)


SUBMIT_TOKEN_TAG = "quotactl:submit-token"
"""Every submitted job carries its request's client token in this tag: neither
ListServiceJobs nor DescribeServiceJob returns the token, and a submit whose answer was lost
finds its job by it."""


@dataclass(frozen=True)
class SubmitRequest:
    """One SubmitServiceJob call, ready to send (``params``), and where it goes."""

    name: str
    queue: str
    share: str
    params: Mapping[str, Any]
    base: str = ""
    """The name before its ``-N`` suffix, and N (0 without one)."""
    index: int = 0


def resolve_target(spec: JobSpec, options: SubmitOptions) -> tuple[str, str]:
    """(queue, share): the flags win over the spec; both are needed."""
    queue = options.queue or spec.queue
    share = options.share or spec.share
    missing = [flag for flag, value in (("--queue", queue), ("--share", share)) if not value]
    if missing or queue is None or share is None:
        raise UsageError(
            f"no {' or '.join(k.lstrip('-') for k in missing)} to submit {spec.file} to",
            hint=f"pass {' and '.join(missing)}, or set queue: and share: in a friendly spec",
        )
    return queue, share


def default_name(spec: JobSpec, now: float) -> str:
    """``<image repository>-<YYYYMMDDHHMMSS>``, the SageMaker SDK's naming."""
    image = str(spec.payload.get("AlgorithmSpecification", {}).get("TrainingImage", "job"))
    repository = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
    base = re.sub(r"[^A-Za-z0-9-]+", "-", repository).strip("-")[:40] or "job"
    return f"{base}-{time.strftime('%Y%m%d%H%M%S', time.gmtime(now))}"


def training_job_name(name: str) -> str:
    """A Batch job name as a SageMaker TrainingJobName: no ``_``, at most 63 characters."""
    cleaned = re.sub(r"-+", "-", name.replace("_", "-")).strip("-")
    return cleaned[:MAX_TRAINING_JOB_NAME].rstrip("-") or "job"


def requests(
    spec: JobSpec,
    options: SubmitOptions,
    *,
    now: float,
    token: Callable[[], str],
) -> list[SubmitRequest]:
    """The SubmitServiceJob requests for ``options.count`` jobs of ``spec``.

    Names get ``-1`` ... ``-N`` with ``--count`` (``-S`` ... ``-S+N-1`` with a start index S
    other than 1, so that a second run never repeats a name); each request has its own
    client token (from ``token``), so resending it (a retry) can never create a second job.
    """
    if not 1 <= options.count <= MAX_COUNT:
        raise UsageError(f"--count must be 1 to {MAX_COUNT}, got {options.count}")
    if options.name == "":  # not "no --name": an empty one would quietly be the spec's
        raise UsageError(
            "--name is empty: a job name has 1 to 128 letters, digits, '-' or '_'",
            hint="leave --name out to use the spec's name",
        )
    queue, share = resolve_target(spec, options)
    raw_name = spec.payload.get("TrainingJobName") if spec.form == "raw" else None
    base = options.name or spec.name or raw_name or default_name(spec, now)
    priority = options.priority if options.priority is not None else spec.priority
    retries = (
        options.preemption_retries
        if options.preemption_retries is not None
        else spec.preemption_retries
    )
    tags = {**spec.tags, **options.tags}
    longest = len(f"-{options.count}") if options.count > 1 else 0
    if len(base) + longest > MAX_JOB_NAME:
        with_count = f" with --count {options.count} (a -1 to -{options.count} suffix)"
        raise UsageError(
            f"job name {base[:40]!r}... is {len(base)} characters; AWS allows at most "
            f"{MAX_JOB_NAME}{with_count if longest else ''}",
            hint="choose a shorter name (--name)",
        )
    out: list[SubmitRequest] = []
    numbered = options.count > 1 or options.start_index != 1
    first = options.start_index
    for index in range(first, first + options.count):
        suffix = f"-{index}" if numbered else ""
        name = base + suffix
        payload = dict(spec.payload)
        if numbered or options.name or "TrainingJobName" not in payload:
            payload["TrainingJobName"] = training_job_name(name)
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
        size = len(text.encode())
        if size > MAX_PAYLOAD_BYTES:
            raise SpecInvalidError(
                f"{spec.file}: the CreateTrainingJob payload is {size} bytes; SubmitServiceJob "
                f"accepts at most {MAX_PAYLOAD_BYTES}",
                hint="move long values (hyperparameters, environment) into files in S3",
            )
        params: dict[str, Any] = {
            "jobName": name,
            "jobQueue": queue,
            "serviceJobType": SAGEMAKER_TRAINING,
            "serviceRequestPayload": text,
            "quotaShareName": share,
            "clientToken": token(),
        }
        if priority is not None:
            params["schedulingPriority"] = priority
        if retries is not None:
            params["preemptionConfiguration"] = {"preemptionRetriesBeforeTermination": retries}
        if options.timeout_seconds is not None:
            params["timeoutConfig"] = {"attemptDurationSeconds": options.timeout_seconds}
        params["tags"] = {**tags, SUBMIT_TOKEN_TAG: params["clientToken"]}
        out.append(SubmitRequest(name, queue, share, params, base, index if numbered else 0))
    return out


def resume_options(left: Sequence[SubmitRequest]) -> list[str]:
    """The submit options that send ``left`` (requests not sent) under their own names: a
    second run with them never repeats a name the first one gave."""
    first = left[0]
    if first.index == 0:
        return ["--name", first.name]
    return ["--name", first.base, "--count", str(len(left)), "--start-index", str(first.index)]


def instance_of(spec: JobSpec) -> tuple[str, int]:
    """The job's (instance type, count) for the scheduler: the largest group if several."""
    if not spec.instances:
        raise SpecInvalidError(f"{spec.file}: the job names no instances")
    instance_type, count = max(spec.instances.items(), key=lambda item: (item[1], item[0]))
    return instance_type, count
