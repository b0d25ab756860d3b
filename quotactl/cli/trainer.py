"""``submit --trainer MODULE:ATTR``: a SageMaker SDK ``ModelTrainer`` through ``TrainingQueue``.

The SDK (the optional ``quotactl[sagemaker]`` extra) is imported here only. Its batch helpers
build clients with ``boto3.client("batch")``, i.e. from boto3's default session: for the
duration of the submit that session is quotactl's own (the emulator, ``--profile`` and
``--region`` apply), and on an ``--endpoint-url`` the SDK is pointed at it the way the SDK
documents (``AWS_ENDPOINT_URL_BATCH``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

from quotactl.errors import QuotactlError, SageMakerSdkMissingError, TrainerInvalidError, UsageError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from quotactl.cli.runtime import Runtime
    from quotactl.core.jobs.spec import SubmitOptions

INSTALL = "pip install 'quotactl[sagemaker]'"


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


def submit_trainer(runtime: Runtime, ref: str, options: SubmitOptions, as_json: bool) -> None:
    try:
        from sagemaker.train.aws_batch.training_queue import TrainingQueue
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
    with _sdk_session(runtime):
        try:
            job = TrainingQueue(options.queue).submit(
                training_job=trainer,
                inputs=None,
                job_name=options.name,
                quota_share_name=options.share,
                **extra,
            )
        except (TypeError, ValueError) as exc:
            raise TrainerInvalidError(f"the SageMaker SDK refused the job: {exc}") from exc
        except Exception as exc:
            from quotactl.aws.calls import translate

            raise translate(exc, "SubmitServiceJob") from exc
    job_id = job.job_arn.rsplit("/", 1)[-1]
    if as_json:
        from quotactl.aws.jobs import Submitted
        from quotactl.render.jobs_json import submitted_json

        done = Submitted(job_id, job.job_arn, job.job_name, options.queue, options.share)
        runtime.stdout.write(submitted_json([done], []))
        return
    print(
        f"submitted {job.job_name} ({job_id}) to {options.queue}/{options.share} "
        "through the SageMaker SDK's TrainingQueue",
        file=runtime.stdout,
    )


@contextlib.contextmanager
def _sdk_session(runtime: Runtime) -> Iterator[None]:
    import boto3

    target = runtime.target()
    saved_session = boto3.DEFAULT_SESSION
    saved_endpoint = os.environ.get("AWS_ENDPOINT_URL_BATCH")
    if target.endpoint_url:
        boto3.DEFAULT_SESSION = boto3.Session(
            aws_access_key_id=None if target.backend == "aws" else "quotactl-local",
            aws_secret_access_key=None if target.backend == "aws" else "quotactl-local",
            profile_name=target.profile if target.backend == "aws" else None,
            region_name=target.region or "us-east-1",
        )
        os.environ["AWS_ENDPOINT_URL_BATCH"] = target.endpoint_url
    else:
        boto3.DEFAULT_SESSION = runtime.session(target)
    try:
        yield
    finally:
        boto3.DEFAULT_SESSION = saved_session
        if saved_endpoint is None:
            os.environ.pop("AWS_ENDPOINT_URL_BATCH", None)
        else:
            os.environ["AWS_ENDPOINT_URL_BATCH"] = saved_endpoint
