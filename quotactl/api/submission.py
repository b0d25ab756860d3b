"""Submitting SageMaker Training jobs: ``job_request`` (a checked spec and where it goes),
``preview`` (where it would run now, and when it would start) and ``submit``;
``submit_trainer`` for a SageMaker SDK ``ModelTrainer`` is in ``quotactl.api.trainer``."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from quotactl.api.jobs import read_live
from quotactl.core.estimate.answers import Preview
from quotactl.core.jobs.results import SubmitResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.aws.account import Account
    from quotactl.core.jobs.spec import JobSpec, SubmitOptions, SubmitRequest


@dataclass(frozen=True)
class JobRequest:
    """A checked job spec with the command line's options, and the queue and share it goes to."""

    spec: JobSpec
    options: SubmitOptions
    queue: str
    share: str


def job_request(spec_file: Path | str, options: SubmitOptions) -> JobRequest:
    """Read and check the job spec at ``spec_file`` (``SpecInvalidError`` lists every problem);
    the options' queue and share win over the spec's."""
    from quotactl.config.jobspec import load_job_spec
    from quotactl.core.jobs.spec import resolve_target

    spec = load_job_spec(Path(spec_file))
    queue, share = resolve_target(spec, options)
    return JobRequest(spec, options, queue, share)


def preview(
    account: Account,
    request: JobRequest,
    *,
    clock: Callable[[], float] = time.time,
    history_file: Path | None = None,
) -> Preview:
    """Where the job would run now and when it would start (submits nothing), after every
    check ``submit`` runs: a request ``submit`` would refuse is refused here too, with the
    same error. ``history_file``: a ledger to draw run times from."""
    from collections import Counter

    from quotactl.api.estimates import preview_estimates, read_for_estimates
    from quotactl.core.jobs.placement import preview_jobs
    from quotactl.core.jobs.spec import instance_of

    before = Counter(account.calls)
    (live,) = read_for_estimates(account, [request.queue])
    batch = checked_requests(account, request, now=max(clock(), live.read_at))
    instance_type, count = instance_of(request.spec)
    chosen = request.options.priority
    priority = chosen if chosen is not None else (request.spec.priority or 0)
    placements = preview_jobs(
        live,
        share=request.share,
        instance_type=instance_type,
        count=count,
        priority=priority,
        n_jobs=request.options.count,
        timing=account.timing,
    )
    names = {j.job_id: j.name for j in live.jobs if not j.is_final}
    ids, estimates = preview_estimates(
        account,
        live,
        batch,
        instance_type=instance_type,
        count=count,
        priority=priority,
        history_file=history_file,
    )
    estimates = replace(estimates, calls=dict(account.calls - before))
    return Preview(
        placements[0],
        request.queue,
        request.share,
        names,
        tuple(placements),
        estimates,
        ids,
        live.read_at,
    )


def submit(
    account: Account,
    request: JobRequest,
    *,
    clock: Callable[[], float] = time.time,
    token: Callable[[], str] = lambda: uuid.uuid4().hex,
) -> SubmitResult:
    """Submit the job (``options.count`` of them, paced to AWS's 5 a second). On the aws
    backend the job's IAM role and output bucket are checked first."""
    from quotactl.core.jobs.placement import preview as place
    from quotactl.core.jobs.spec import instance_of

    # Whether the share could ever run the job depends on the configuration only: no jobs.
    (live,) = read_live(account, [request.queue], statuses=(), details=False)
    instance_type, count = instance_of(request.spec)
    static = place(
        live,
        share=request.share,
        instance_type=instance_type,
        count=count,
        priority=0,
        timing=account.timing,
    )
    warnings: list[str] = []
    if static.placement == "misconfigured":
        warnings.append(
            f"the job will sit RUNNABLE on {request.queue}/{request.share} and never start: "
            f"{static.status_reason}"
        )
    batch = checked_requests(
        account, request, now=max(clock(), live.read_at), token=token, warnings=warnings
    )
    return SubmitResult(account.jobs.submit(batch), warnings)


def checked_requests(
    account: Account,
    request: JobRequest,
    *,
    now: float,
    token: Callable[[], str] = lambda: uuid.uuid4().hex,
    warnings: list[str] | None = None,
) -> list[SubmitRequest]:
    """The SubmitServiceJob requests ``submit`` sends, after every check it runs before
    sending (AWS Batch's rules for each request; on the aws backend, the job's IAM role and
    output bucket). ``preview`` runs it too: one path, so a dry run refuses what submit does.
    A check that could not be made is added to ``warnings`` (None: said through the account's
    ``notice``)."""
    from quotactl.config.submission import check_requests
    from quotactl.core.jobs.spec import requests

    batch = requests(request.spec, request.options, now=now, token=token)
    check_requests(request.spec.file, batch)
    if account.backend_name == "aws":
        skipped = _preflight(account, request.spec)
        if warnings is not None:
            warnings += skipped
        for line in skipped if warnings is None else ():
            account.notice(f"warning: {line}")
    return batch


def _preflight(account: Account, spec: JobSpec) -> list[str]:
    from quotactl.aws.training import preflight

    output_path = (spec.payload.get("OutputDataConfig") or {}).get("S3OutputPath")
    return preflight(
        account.client("iam", probe=True),
        account.client("s3", probe=True),
        role_arn=spec.payload.get("RoleArn"),
        output_s3=output_path,
    )
