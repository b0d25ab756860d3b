"""The JSON documents of the job commands (format version 1; fields are only ever added).

``jobs``::

    {"format_version": "1", "jobs": [JOB, ...]}          # newest first
    JOB = {"job_id", "job_arn", "name", "queue", "share", "status", "status_reason",
           "priority", "instance_type", "instance_count", "created_at", "started_at",
           "stopped_at", "attempts", "preemptions"}

``job describe``: ``{"format_version": "1", "job": JOB + {"payload", "tags",
"preemption_history": [PREEMPTION], "training_job": null | {"name", "status",
"secondary_status"}}}``. ``job why``: ``{"format_version": "1", "job_id", "status",
"wait": null | {"code", "message", "status_reason", "ahead": [job_id]}, "preemptions":
[PREEMPTION]}`` with ``PREEMPTION = {"at", "kind": "reclaim" | "in-share", "by_share",
"by_job", "status_reason"}``. ``submit``: ``{"format_version": "1", "submitted": [{"job_id",
"job_arn", "name", "queue", "share"}], "warnings": [str]}``; ``submit --dry-run``:
``{"format_version": "1", "placement", "message", "lenders": [share], "victims": [{"job_id",
"share", "kind"}], "ahead": [job_id], "status_reason", "wait_code"}``. ``job priority``:
``{"format_version": "1", "job_id", "priority_before", "priority", "starts", "preempts":
[{"job_id", "share", "kind", "by_job"}]}``. Times are ISO 8601 UTC
(``2026-12-01T09:30:00Z``); absent values are null.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.estimate.answers import Explained, JobRows, Preview
from quotactl.core.jobs.reprioritise import PriorityChange
from quotactl.core.jobs.results import Cancelled, JobDescription, SubmitResult
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.estimate import Estimates, Eta
    from quotactl.core.jobs.analysis import Wait
    from quotactl.core.jobs.placement import Placement
    from quotactl.core.jobs.records import JobDetail
    from quotactl.core.jobs.results import Submitted
    from quotactl.core.jobs.why import Preemption, Why
    from quotactl.core.resources.observed import LiveJob

FORMAT_VERSION = "1"


def iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    stamp = datetime.fromtimestamp(seconds, UTC)
    text = stamp.strftime("%Y-%m-%dT%H:%M:%S")
    if stamp.microsecond:
        text += f".{stamp.microsecond // 1000:03d}"
    return text + "Z"


def versioned(document: dict[str, Any]) -> dict[str, Any]:
    return {"format_version": FORMAT_VERSION, **document}


def job_view(job: LiveJob) -> dict[str, Any]:
    return {
        "job_id": job.job_id,
        "job_arn": job.job_arn,
        "name": job.name,
        "queue": job.queue,
        "share": job.share,
        "status": job.status.value,
        "status_reason": job.status_reason,
        "priority": job.priority,
        "instance_type": job.instance_type,
        "instance_count": job.instance_count if job.instances else None,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "stopped_at": iso(job.stopped_at),
        "attempts": job.attempts,
        "preemptions": job.preemptions,
    }


@view(JobRows, Output.JSON)
def show_jobs_json(rows: JobRows, screen: Screen) -> None:
    """``jobs -o json``: the whole listing in one document."""
    screen.write_json(jobs_document(list(rows.jobs), rows.estimates))


def jobs_document(jobs: Sequence[LiveJob], estimates: Estimates | None = None) -> dict[str, Any]:
    """With ``estimates`` (``jobs --eta``): every job gains ``eta`` (null unless it waits),
    and the document an ``estimate`` (how it was made, and the API calls it read with)."""
    if estimates is None:
        return {"format_version": FORMAT_VERSION, "jobs": [job_view(j) for j in jobs]}
    return {
        "format_version": FORMAT_VERSION,
        "jobs": [{**job_view(j), "eta": eta_view(estimates.eta(j.job_id))} for j in jobs],
        "estimate": estimate_view(estimates),
    }


def preemption_view(p: Preemption) -> dict[str, Any]:
    return {
        "at": iso(p.at),
        "kind": p.kind,
        "by_share": p.by_share,
        "by_job": p.by_job,
        "status_reason": p.status_reason,
    }


@view(JobDescription, Output.JSON)
def show_job_json(found: JobDescription, screen: Screen) -> None:
    """``job describe -o json``."""
    screen.write_json(describe_document(found.detail, found.preemptions, found.training_job))


def describe_document(
    detail: JobDetail,
    preemptions: Sequence[Preemption],
    training_job: dict[str, object] | None,
) -> dict[str, Any]:
    payload: object = None
    if detail.payload:
        try:
            payload = json.loads(detail.payload)
        except ValueError:
            payload = detail.payload
    view = {
        **job_view(detail.job),
        "payload": payload,
        "tags": dict(detail.tags),
        "preemption_history": [preemption_view(p) for p in preemptions],
        "training_job": training_job,
    }
    return versioned({"job": view})


def wait_view(wait: Wait | None) -> dict[str, Any] | None:
    if wait is None:
        return None
    return {
        "code": wait.code,
        "message": wait.message,
        "status_reason": wait.status_reason,
        "ahead": list(wait.ahead),
    }


@view(Explained, Output.JSON)
def show_why_json(answer: Explained, screen: Screen) -> None:
    """``job why -o json``."""
    screen.write_json(why_document(answer.why, answer.estimates))


def why_document(why: Why, estimates: Estimates | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {
        "job_id": why.job.job_id,
        "status": why.job.status.value,
        "wait": wait_view(why.wait),
        "preemptions": [preemption_view(p) for p in why.preemptions],
    }
    if estimates is not None:
        document["eta"] = eta_view(estimates.eta(why.job.job_id))
        document["estimate"] = estimate_view(estimates)
    return versioned(document)


@view(Preview, Output.JSON)
def show_preview_json(found: Preview, screen: Screen) -> None:
    """``submit --dry-run -o json``."""
    screen.write_json(
        placement_document(found.placement, found.placements, found.estimates, found.ids)
    )


def placement_document(
    placement: Placement,
    placements: Sequence[Placement] = (),
    estimates: Estimates | None = None,
    ids: Sequence[str] = (),
) -> dict[str, Any]:
    """The first job's placement; with a ``--count``, every job's under ``jobs``; with
    ``estimates`` of the previewed jobs (by ``ids``), each gains ``eta``."""
    etas: list[Eta | None] = [estimates.eta(i) if estimates else None for i in ids]
    document = placement_view(placement)
    if estimates is not None:
        document["eta"] = eta_view(etas[0] if etas else None)
        document["estimate"] = estimate_view(estimates)
    if len(placements) > 1:
        document["jobs"] = [placement_view(p) for p in placements]
        if estimates is not None:
            for view, eta in zip(document["jobs"], etas, strict=False):
                view["eta"] = eta_view(eta)
    return versioned(document)


def placement_view(placement: Placement) -> dict[str, Any]:
    return {
        "placement": placement.placement,
        "message": placement.message,
        "lenders": list(placement.lenders),
        "victims": [
            {"job_id": v.job_id, "share": v.share, "kind": v.kind} for v in placement.victims
        ],
        "ahead": list(placement.ahead),
        "status_reason": placement.status_reason,
        "wait_code": placement.wait.code if placement.wait else None,
    }


@view(SubmitResult, Output.JSON)
def show_submitted_json(result: SubmitResult, screen: Screen) -> None:
    """``submit -o json``: its warnings on stderr, then the jobs submitted."""
    submit_warnings(result, screen)
    screen.write_json(submitted_document(result.submitted, result.warnings))


def submit_warnings(result: SubmitResult, screen: Screen) -> None:
    """``warning: ...`` on stderr for each warning about the jobs submitted."""
    for warning in result.warnings:
        screen.line(f"warning: {warning}", stderr=True)


def submitted_document(submitted: Sequence[Submitted], warnings: Sequence[str]) -> dict[str, Any]:
    return versioned(
        {
            "submitted": [
                {
                    "job_id": s.job_id,
                    "job_arn": s.job_arn,
                    "name": s.name,
                    "queue": s.queue,
                    "share": s.share,
                }
                for s in submitted
            ],
            "warnings": list(warnings),
        }
    )


@view(PriorityChange, Output.JSON)
def show_priority_json(change: PriorityChange, screen: Screen) -> None:
    """``job priority -o json``."""
    screen.write_json(priority_document(change))


def priority_document(change: PriorityChange) -> dict[str, Any]:
    return versioned(
        {
            "job_id": change.job_id,
            "priority_before": change.before,
            "priority": change.after,
            "starts": change.starts,
            "preempts": [
                {"job_id": v.job_id, "share": v.share, "kind": v.kind, "by_job": v.by_job}
                for v in change.preempts
            ],
        }
    )


def eta_view(eta: Eta | None) -> dict[str, Any] | None:
    if eta is None:
        return None
    return {
        "p10": iso(eta.p10),
        "p50": iso(eta.p50),
        "p90": iso(eta.p90),
        "position_in_share": eta.position_in_share,
        "position_in_queue": eta.position_in_queue,
        "basis": eta.basis.word,
    }


def estimate_view(estimates: Estimates) -> dict[str, Any]:
    return {
        "runs": estimates.runs,
        "seed": estimates.seed,
        "history": estimates.history,
        "new_jobs": "not assumed",
        "api_calls": dict(sorted(estimates.calls.items())),
        "computation_seconds": round(estimates.seconds, 3),
    }


@view(Cancelled, Output.JSON)
def show_cancelled_json(result: Cancelled, screen: Screen) -> None:
    """``job cancel -o json``; the jobs AWS would not cancel, one line each on stderr."""
    screen.write_json(
        {
            "format_version": FORMAT_VERSION,
            "cancelled": result.done,
            "finished": [
                {"job_id": d.job.job_id, "name": d.job.name, "status": d.job.status.value}
                for d in result.finished
            ],
            "errors": result.errors,
        }
    )
    cancel_errors(result, screen)


def cancel_errors(result: Cancelled, screen: Screen) -> None:
    """``error: JOB: CODE: MESSAGE`` on stderr for each job AWS would not cancel."""
    for error in result.errors:
        screen.line(f"error: {error['job']}: {error['code']}: {error['message']}", stderr=True)
