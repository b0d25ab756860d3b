"""Service jobs: SubmitServiceJob, DescribeServiceJob, UpdateServiceJob, TerminateServiceJob(s)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from quotactl.core.states import FINAL, UNAVAILABLE, State
from quotactl.emulator.account import engine_fields, request_checks as v
from quotactl.emulator.account.arns import job_id_of, new_job_id
from quotactl.emulator.account.models import JobQueue, QuotaShare, SchedulingPolicy
from quotactl.emulator.account.service_job import ServiceJob
from quotactl.emulator.errors import ClientException
from quotactl.emulator.handlers.common import find
from quotactl.emulator.scheduling import jobs

if TYPE_CHECKING:
    from quotactl.emulator.scheduling.context import Context

Params = dict[str, Any]
MAX_REQUEST_BYTES = 30 * 1024
MAX_PAYLOAD_BYTES = 10 * 1024
MAX_BULK_TERMINATE = 50


def find_job(ctx: Context, value: str) -> ServiceJob:
    """A job by id or by ARN (the SageMaker SDK passes ARNs as jobId)."""
    job_id = job_id_of(value)
    if job_id is None:
        raise ClientException(f"jobId {value!r} is not a service job ID or ARN")
    job = ctx.tx.job(job_id) if ctx.account.owns(value) else None
    if job is None:
        raise ClientException(f"service job {value!r} does not exist")
    return job


def _retry_strategy(params: Params) -> dict[str, Any] | None:
    strategy = v.struct(params, "retryStrategy")
    if strategy is None:
        return None
    v.integer(strategy, "attempts", 1, 10, at="retryStrategy.")
    rules = v.array(strategy, "evaluateOnExit") or []
    if len(rules) > 5:
        raise ClientException(f"retryStrategy.evaluateOnExit has {len(rules)} entries; at most 5")
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            raise ClientException(f"retryStrategy.evaluateOnExit[{index}] must be an object")
        if str(rule.get("action", "")).upper() not in ("RETRY", "EXIT"):
            raise ClientException(
                f"retryStrategy.evaluateOnExit[{index}].action {rule.get('action')!r} is invalid: "
                "use RETRY or EXIT"
            )
        if len(str(rule.get("onStatusReason", ""))) > 512:
            raise ClientException(
                f"retryStrategy.evaluateOnExit[{index}].onStatusReason is longer than 512 "
                "characters"
            )
    if not rules:
        return strategy
    # AWS matches the action in any case ("Retry" is RETRY); it is kept as the model spells it,
    # so Describe* and every comparison see one value.
    actions = [{**rule, "action": str(rule["action"]).upper()} for rule in rules]
    return {**strategy, "evaluateOnExit": actions}


def _share_fields(ctx: Context, params: Params, queue: JobQueue) -> tuple[str | None, str | None]:
    share_name = v.string(params, "quotaShareName")
    identifier = v.string(params, "shareIdentifier")
    if queue.quota_managed:
        if identifier is not None:
            raise ClientException(
                f"shareIdentifier is not allowed on job queue {queue.name!r}, which uses quota "
                "shares; use quotaShareName"
            )
        if share_name is None:
            raise ClientException(
                f"quotaShareName is required: job queue {queue.name!r} uses quota shares"
            )
        share = ctx.tx.get(QuotaShare, share_name, parent=queue.name)
        if share is None or share.status in UNAVAILABLE:
            raise ClientException(
                f"quota share {share_name!r} does not exist on job queue {queue.name!r}"
            )
        if share.state == State.DISABLED:
            raise ClientException(f"quota share {share_name!r} is DISABLED and accepts no new jobs")
        return share_name, None
    if share_name is not None:
        raise ClientException(
            f"quotaShareName is not allowed on job queue {queue.name!r}: it has no quota-share "
            "scheduling policy"
        )
    policy = None
    if queue.scheduling_policy_arn:
        policy = next(
            (p for p in ctx.tx.records(SchedulingPolicy) if p.arn == queue.scheduling_policy_arn),
            None,
        )
    fair_share = policy is not None and policy.fairshare_policy is not None
    if fair_share and identifier is None:
        raise ClientException(
            f"shareIdentifier is required: job queue {queue.name!r} uses a fair-share policy"
        )
    if not fair_share and identifier is not None:
        raise ClientException(
            f"shareIdentifier is not allowed on job queue {queue.name!r}: it has no fair-share "
            "scheduling policy"
        )
    return None, identifier


def submit_service_job(ctx: Context, params: Params) -> dict[str, Any]:
    if len(json.dumps(params)) > MAX_REQUEST_BYTES:
        raise ClientException(f"the request is larger than {MAX_REQUEST_BYTES} bytes")
    name = v.name(params, "jobName")
    queue = find(ctx, JobQueue, v.required_string(params, "jobQueue"), "jobQueue")
    v.enum(params, "serviceJobType", ["SAGEMAKER_TRAINING"])
    payload = v.required_string(params, "serviceRequestPayload")
    if len(payload.encode()) > MAX_PAYLOAD_BYTES:
        raise ClientException(
            f"serviceRequestPayload is {len(payload.encode())} bytes; at most "
            f"{MAX_PAYLOAD_BYTES} are allowed"
        )
    priority = v.integer(params, "schedulingPriority", 0, 9999)
    token = v.string(params, "clientToken")
    if token is not None and not 1 <= len(token) <= 64:
        raise ClientException("clientToken must be 1 to 64 characters")
    digest = jobs.describe_request({k: val for k, val in params.items() if k != "clientToken"})
    if token is not None:
        earlier = ctx.tx.job_by_token(token)
        if earlier is not None:
            if ctx.variant == "strict":  # the model's text: "the second request is rejected"
                raise ClientException(
                    f"clientToken {token!r} was already used: this request is the same as "
                    f"an earlier one and is rejected"
                )
            if earlier.request_digest != digest:
                raise ClientException(
                    f"clientToken {token!r} was already used for a different SubmitServiceJob "
                    "request"
                )
            if ctx.reject_repeated_token:
                raise ClientException(
                    f"clientToken {token!r} was already used: this SubmitServiceJob request is "
                    "rejected as a repeat of an earlier one"
                )
            return {"jobArn": earlier.arn, "jobName": earlier.name, "jobId": earlier.job_id}
    if queue.state == State.DISABLED or queue.status in UNAVAILABLE:
        state = queue.state if queue.state == State.DISABLED else queue.status
        raise ClientException(f"job queue {queue.name!r} is {state} and accepts no jobs")
    share, identifier = _share_fields(ctx, params, queue)
    retry = _retry_strategy(params)
    preemption = v.struct(params, "preemptionConfiguration")
    if preemption is not None:
        v.integer(
            preemption, "preemptionRetriesBeforeTermination", 0, at="preemptionConfiguration."
        )
    timeout = v.struct(params, "timeoutConfig")
    if timeout is not None:
        v.integer(timeout, "attemptDurationSeconds", 1, at="timeoutConfig.")
    tags = v.tags(params.get("tags"))
    try:
        capacity = engine_fields.capacity_of(payload)
    except engine_fields.PayloadError:
        capacity = {}  # passed on unvalidated, as AWS does; the job fails when SageMaker sees it
    run_for, max_runtime = engine_fields.runtime_of(payload, tags)
    created = ctx.submitted_at()
    job_id = new_job_id()
    job = ServiceJob(
        job_id=job_id,
        arn=ctx.account.arn("service-job", job_id),
        name=name,
        queue_ref=queue.seq,
        queue_arn=queue.arn,
        share=share,
        share_identifier=identifier,
        payload=payload,
        priority=priority,
        created_at=created,
        capacity=capacity,
        run_for=run_for,
        max_runtime=max_runtime,
        status_since=created,
        reason_since=created,
        retry_strategy=retry,
        preemption_configuration=preemption,
        timeout_config=timeout,
        client_token=token,
        request_digest=digest,
    )
    ctx.tx.insert_job(job, due_at=created)
    if tags:
        ctx.tx.set_tags(job.arn, tags)
    ctx.settling(job.job_id)
    return {"jobArn": job.arn, "jobName": name, "jobId": job_id}


def describe_service_job(ctx: Context, params: Params) -> dict[str, Any]:
    job = find_job(ctx, v.required_string(params, "jobId"))
    return job.to_api(ctx.tx.tags(job.arn))


def update_service_job(ctx: Context, params: Params) -> dict[str, Any]:
    job = find_job(ctx, v.required_string(params, "jobId"))
    priority = v.integer(params, "schedulingPriority", 0, 9999)
    if priority is None:
        raise ClientException("schedulingPriority is required (0 to 9999)")
    if job.status in FINAL:
        raise ClientException(
            f"service job {job.job_id} is {job.status}; only unfinished jobs can be updated"
        )
    job.priority = priority
    ctx.tx.update_job(job)
    state = ctx.engines.get(ctx.tx, job.queue_ref, ctx.now)
    live = state is not None and state.engine.live(job.job_id) is not None
    if state is not None and live and state.queue.quota_managed:  # FIFO: submission order
        state.engine.set_priority(job.job_id, priority)
        ctx.changed(job.queue_ref)
    return {"jobArn": job.arn, "jobName": job.name, "jobId": job.job_id}


def terminate_service_job(ctx: Context, params: Params) -> dict[str, Any]:
    job = find_job(ctx, v.required_string(params, "jobId"))
    jobs.terminate(ctx, job, v.required_string(params, "reason"), stopping=True)
    return {}


def terminate_service_jobs(ctx: Context, params: Params) -> dict[str, Any]:
    wanted = v.array(params, "jobs") or []
    reason = v.required_string(params, "reason")
    if not 1 <= len(wanted) <= MAX_BULK_TERMINATE:
        raise ClientException(f"jobs has {len(wanted)} entries; use 1 to {MAX_BULK_TERMINATE}")
    successful, errors = [], []
    for value in wanted:
        job_id = job_id_of(str(value))
        if job_id is None:
            errors.append(
                {
                    "job": str(value),
                    "code": "ValidationException",
                    "message": f"{value!r} is not a service job ID or ARN",
                }
            )
            continue
        job = ctx.tx.job(job_id) if ctx.account.owns(str(value)) else None
        if job is not None:
            jobs.terminate(ctx, job, reason, stopping=True)
        successful.append(str(value))  # AWS counts unknown IDs as successful
    return {"successful": successful, "errors": errors}
