"""``submit --trainer MODULE:ATTR``: a SageMaker SDK ``ModelTrainer`` through ``TrainingQueue``.

The SDK (the optional ``quotactl[sagemaker]`` extra) is imported here only. Its batch helpers
build clients with ``boto3.client("batch")``, so they run inside the account's
``sdk_session()``: boto3's default session is then the account's (the emulator, ``--profile``,
``--region`` and ``--endpoint-url`` apply).
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.errors import QuotactlError, SageMakerSdkMissingError, TrainerInvalidError, UsageError

if TYPE_CHECKING:
    from quotactl.aws.account import Account
    from quotactl.core.jobs.results import SubmitResult
    from quotactl.core.jobs.spec import SubmitOptions

INSTALL = "pip install 'quotactl[sagemaker]'"


@dataclass(frozen=True)
class TrainerRequest:
    """A loaded ``ModelTrainer``, the queue and share it goes to, and the SDK's options."""

    trainer: Any
    queue: str
    share: str
    name: str | None
    extra: dict[str, Any]


def load_trainer(ref: str) -> Any:
    """``package.module:attr`` -> the object (a ModelTrainer, or a function returning one)."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(
            f"--trainer {ref!r} is not MODULE:ATTR", hint="e.g. train.py's trainer: train:trainer"
        )
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "sagemaker":
            raise _missing_sdk() from exc
        raise UsageError(f"--trainer: cannot import {module_name!r}: {exc}") from exc
    try:
        found = getattr(module, attr)
    except AttributeError as exc:
        raise UsageError(f"--trainer: module {module_name!r} has no {attr!r}") from exc
    return found() if callable(found) and not _is_trainer(found) else found


def _is_trainer(value: Any) -> bool:
    return type(value).__name__ == "ModelTrainer"


def _missing_sdk() -> QuotactlError:
    return SageMakerSdkMissingError(
        "--trainer needs the SageMaker Python SDK, which is not installed",
        hint=f"install the extra: {INSTALL}",
    )


def trainer_request(ref: str, options: SubmitOptions) -> TrainerRequest:
    """The ``ModelTrainer`` at ``ref`` with the options the SDK takes (one job, to the
    options' queue and share)."""
    try:
        import sagemaker.train.aws_batch.training_queue  # noqa: F401
    except ImportError as exc:
        raise _missing_sdk() from exc
    if not options.queue or not options.share:
        raise UsageError("--trainer needs --queue and --share")
    trainer = load_trainer(ref)
    if not _is_trainer(trainer):
        raise UsageError(f"--trainer {ref} is a {type(trainer).__name__}, not a ModelTrainer")
    if options.count != 1:
        raise UsageError("--trainer submits one job: --count is for job specs")
    extra: dict[str, Any] = {}
    if options.priority is not None:
        extra["priority"] = options.priority
    if options.preemption_retries is not None:
        extra["preemption_config"] = {
            "preemptionRetriesBeforeTermination": options.preemption_retries
        }
    if options.timeout_seconds is not None:
        extra["timeout"] = {"attemptDurationSeconds": options.timeout_seconds}
    if options.tags:
        extra["tags"] = dict(options.tags)
    return TrainerRequest(trainer, options.queue, options.share, options.name, extra)


def submit_trainer(account: Account, request: TrainerRequest) -> SubmitResult:
    """Submit the trainer through the SDK's ``TrainingQueue``, on ``account``: one job."""
    from sagemaker.train.aws_batch.training_queue import TrainingQueue

    from quotactl.aws.calls import translate
    from quotactl.core.jobs.results import SubmitResult, Submitted

    with account.sdk_session():
        try:
            job = TrainingQueue(request.queue).submit(
                training_job=request.trainer,
                inputs=None,
                job_name=request.name,
                quota_share_name=request.share,
                **request.extra,
            )
        except (TypeError, ValueError) as exc:
            raise TrainerInvalidError(f"the SageMaker SDK refused the job: {exc}") from exc
        except Exception as exc:
            raise translate(exc, "SubmitServiceJob") from exc
    job_id = job.job_arn.rsplit("/", 1)[-1]
    submitted = Submitted(job_id, job.job_arn, job.job_name, request.queue, request.share)
    return SubmitResult([submitted], [], trainer=True)
