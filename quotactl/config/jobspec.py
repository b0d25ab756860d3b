"""Job spec files (``submit JOBSPEC``) -> a checked ``JobSpec``, with FILE:LINE:COL errors.

Two forms, told apart by their keys: the *friendly* form (snake_case keys such as ``image``
and ``instance_type``, validated by the pydantic model below like a config file) and the *raw*
form (a SageMaker CreateTrainingJob request, PascalCase keys). Both payloads are then checked
against botocore's CreateTrainingJob input shape (``payload.py``). Nothing is sent to AWS.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from quotactl.config.builder import abbreviate, yaml_type
from quotactl.config.load import read_document
from quotactl.config.messages import diagnostics_from, did_you_mean
from quotactl.config.payload import check_payload, instances_of
from quotactl.config.schema import INT32_MAX, Name, Tags
from quotactl.core.durations import DurationError, parse_duration
from quotactl.core.files import MAX_JOB_SPEC_BYTES, check_readable
from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME as SAGEMAKER_DEFAULT_RUNTIME, JobSpec
from quotactl.errors import Diagnostic, SpecInvalidError
from quotactl.servicemodel.instance_types import training_instance_types

if TYPE_CHECKING:
    from pathlib import Path

ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}")
S3_URI = re.compile(r"s3://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/.*)?")
CHANNEL = re.compile(r"[A-Za-z0-9.\-_]{1,64}")
MAX_RUNTIME_SECONDS = 28 * 86400
DEFAULT_MAX_RUNTIME = int(SAGEMAKER_DEFAULT_RUNTIME)  # whole seconds in the schema
DEFAULT_VOLUME_GB = 30


def _custom(kind: str, message: str) -> PydanticCustomError:
    return PydanticCustomError(kind, message, {"message": message})


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise _custom("string_type", f"expected {what}, got {yaml_type(value)}")
    return value


def _instance_type(value: object) -> str:
    text = _string(value, "a SageMaker training instance type such as ml.g5.xlarge")
    known = training_instance_types()
    if text not in known:
        hint = did_you_mean(text, sorted(known)) or ""
        if "did you mean" not in hint:
            hint = " (botocore's SageMaker model lists every training instance type)"
        raise _custom(
            "instance_type", f"{abbreviate(text)!r} is not a SageMaker training instance type{hint}"
        )
    return text


def _role_arn(value: object) -> str:
    text = _string(value, "an IAM role ARN")
    if not ROLE_ARN.fullmatch(text):
        raise _custom(
            "role_arn",
            f"{abbreviate(text)!r} is not an IAM role ARN "
            "(arn:aws:iam::<12-digit account>:role/<name>)",
        )
    return text


def _s3_uri(value: object) -> str:
    text = _string(value, "an S3 URI")
    if not S3_URI.fullmatch(text):
        raise _custom("s3_uri", f"{abbreviate(text)!r} is not an S3 URI (s3://<bucket>/<prefix>)")
    return text


def _duration(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _custom(
            "duration", f"expected a duration such as 90m, 2h or 1d, got {yaml_type(value)}"
        )
    try:
        seconds = float(value) if isinstance(value, int) else parse_duration(value)
    except DurationError as exc:
        raise _custom("duration", str(exc)) from exc
    if not 1 <= seconds <= MAX_RUNTIME_SECONDS or seconds != int(seconds):
        raise _custom(
            "duration",
            f"must be whole seconds from 1s to 28d (SageMaker's MaxRuntimeInSeconds), got {value}",
        )
    return int(seconds)


def _channel(value: object) -> str:
    text = _string(value, "a channel name")
    if not CHANNEL.fullmatch(text):
        raise _custom("channel", f"{abbreviate(text)!r} is not a channel name ([A-Za-z0-9.-_])")
    return text


InstanceType = Annotated[str, BeforeValidator(_instance_type)]
RoleArn = Annotated[str, BeforeValidator(_role_arn)]
S3Uri = Annotated[str, BeforeValidator(_s3_uri)]
Duration = Annotated[int, BeforeValidator(_duration)]
Channel = Annotated[str, BeforeValidator(_channel)]


class FriendlySpec(BaseModel):
    """The friendly job spec: what a training job needs, in the config's own style."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, title="quotactl job spec")

    image: str = Field(min_length=1, max_length=255, description="The training image URI.")
    instance_type: InstanceType
    instance_count: int = Field(default=1, ge=1, le=INT32_MAX)
    volume_gb: int = Field(default=DEFAULT_VOLUME_GB, ge=1, le=16384)
    role_arn: RoleArn
    output_s3: S3Uri
    inputs: dict[Channel, S3Uri] = Field(default_factory=dict, max_length=20)
    hyperparameters: dict[Annotated[str, Field(max_length=256)], str] = Field(
        default_factory=dict, max_length=100
    )
    max_runtime: Duration = DEFAULT_MAX_RUNTIME
    environment: dict[str, str] = Field(default_factory=dict, max_length=100)
    tags: Tags = Field(default_factory=dict)
    checkpoint_s3: S3Uri | None = None
    queue: Name | None = None
    share: Name | None = None
    priority: int | None = Field(default=None, ge=0, le=9999)
    name: Name | None = None
    preemption_retries: int | None = Field(default=None, ge=0, le=INT32_MAX)


MODELS: dict[tuple[str, ...], type[BaseModel]] = {(): FriendlySpec}
FRIENDLY_KEYS = frozenset(FriendlySpec.model_fields)
# Where a payload problem of the friendly form is best shown in the file.
_PAYLOAD_TO_KEY = {
    "AlgorithmSpecification": "image",
    "RoleArn": "role_arn",
    "OutputDataConfig": "output_s3",
    "ResourceConfig": "instance_type",
    "StoppingCondition": "max_runtime",
    "HyperParameters": "hyperparameters",
    "InputDataConfig": "inputs",
    "Environment": "environment",
    "CheckpointConfig": "checkpoint_s3",
}


def load_job_spec(path: Path) -> JobSpec:
    """Read and check the job spec at ``path``; ``ConfigError`` lists every problem."""
    check_readable(
        path, "job spec", hint="give a YAML or JSON job spec (examples in configs/jobs/)"
    )
    data, source, diagnostics = read_document(
        path, expected="a job spec (see configs/jobs/)", what="job spec", limit=MAX_JOB_SPEC_BYTES
    )
    if data is None and diagnostics:
        raise _invalid(diagnostics)
    if not isinstance(data, dict):
        message = (
            "a job spec must be a mapping (friendly keys such as image and instance_type, or "
            f"a CreateTrainingJob request), but this one is {yaml_type(data)}"
        )
        raise _invalid([source.diagnostic((), message)])
    if diagnostics:
        raise _invalid(diagnostics)
    if _is_raw(data):
        return _raw(path, data, source)
    return _friendly(path, data, source)


def _is_raw(data: dict[str, Any]) -> bool:
    """A CreateTrainingJob request: PascalCase keys, none of the friendly form's."""
    keys = [str(k) for k in data]
    return bool(keys) and not set(keys) & FRIENDLY_KEYS and all(k[:1].isupper() for k in keys)


def _friendly(path: Path, data: dict[str, Any], source: Any) -> JobSpec:
    try:
        spec = FriendlySpec.model_validate(data)
    except ValidationError as exc:
        raise _invalid(diagnostics_from(exc, source, MODELS)) from exc
    payload = _payload_of(spec)
    problems = check_payload(payload)
    if problems:
        raise _invalid(
            [
                source.diagnostic(
                    (_PAYLOAD_TO_KEY.get(str(p.path[0]), ""),) if p.path else (),
                    f"the CreateTrainingJob request it makes: {p.message}",
                )
                for p in problems
            ]
        )
    return JobSpec(
        file=str(path),
        form="friendly",
        payload=payload,
        instances={spec.instance_type: spec.instance_count},
        queue=spec.queue,
        share=spec.share,
        priority=spec.priority,
        name=spec.name,
        preemption_retries=spec.preemption_retries,
        tags=dict(spec.tags),
    )


def _payload_of(spec: FriendlySpec) -> dict[str, Any]:
    """The CreateTrainingJob request the SageMaker SDK's ModelTrainer would build."""
    payload: dict[str, Any] = {
        "TrainingJobName": (spec.name or "quotactl-job").replace("_", "-")[:63],
        "AlgorithmSpecification": {"TrainingImage": spec.image, "TrainingInputMode": "File"},
        "RoleArn": spec.role_arn,
        "OutputDataConfig": {"S3OutputPath": spec.output_s3},
        "ResourceConfig": {
            "InstanceType": spec.instance_type,
            "InstanceCount": spec.instance_count,
            "VolumeSizeInGB": spec.volume_gb,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": spec.max_runtime},
        "HyperParameters": dict(spec.hyperparameters),
    }
    if spec.inputs:
        payload["InputDataConfig"] = [
            {
                "ChannelName": channel,
                "DataSource": {
                    "S3DataSource": {
                        "S3DataType": "S3Prefix",
                        "S3Uri": uri,
                        "S3DataDistributionType": "FullyReplicated",
                    }
                },
                "InputMode": "File",
            }
            for channel, uri in spec.inputs.items()
        ]
    if spec.environment:
        payload["Environment"] = dict(spec.environment)
    if spec.checkpoint_s3:
        payload["CheckpointConfig"] = {"S3Uri": spec.checkpoint_s3}
    return payload


def _raw(path: Path, data: dict[str, Any], source: Any) -> JobSpec:
    problems = check_payload(data)
    if problems:
        raise _invalid(
            [
                source.diagnostic(p.path, p.message, at="key" if p.at_key else "value")
                for p in problems
            ]
        )
    payload = dict(data)
    # As the SageMaker SDK does: Tags become the service job's tags (Batch tags the job).
    tags = {str(t["Key"]): str(t["Value"]) for t in payload.pop("Tags", None) or []}
    return JobSpec(
        file=str(path),
        form="raw",
        payload=payload,
        instances=instances_of(payload),
        tags=tags,
    )


def _invalid(diagnostics: list[Diagnostic]) -> SpecInvalidError:
    ordered = sorted(dict.fromkeys(diagnostics), key=lambda d: (d.line, d.column))
    n = len([d for d in ordered if d.severity == "error"])
    return SpecInvalidError(
        f"job spec has {n} error{'s' if n != 1 else ''}: nothing was submitted",
        diagnostics=ordered,
        hint="friendly and raw spec formats: docs/jobs.md; examples in configs/jobs/",
    )
