"""One function per AWS Batch operation, named after it (moto's ``responses.py`` role).

A handler takes the request's members as a dict and returns the response's members; it
checks what AWS checks, reads and writes through ``ctx.tx`` and raises ``ClientException``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quotactl.emulator.handlers import (
    environments,
    job_listing,
    policies,
    queues,
    service_jobs,
    shares,
    snapshot,
    tags,
)
from quotactl.emulator.scheduling.context import Context

Handler = Callable[[Context, dict[str, Any]], dict[str, Any]]

HANDLERS: dict[str, Handler] = {
    "CreateSchedulingPolicy": policies.create_scheduling_policy,
    "UpdateSchedulingPolicy": policies.update_scheduling_policy,
    "DeleteSchedulingPolicy": policies.delete_scheduling_policy,
    "DescribeSchedulingPolicies": policies.describe_scheduling_policies,
    "ListSchedulingPolicies": policies.list_scheduling_policies,
    "CreateServiceEnvironment": environments.create_service_environment,
    "UpdateServiceEnvironment": environments.update_service_environment,
    "DeleteServiceEnvironment": environments.delete_service_environment,
    "DescribeServiceEnvironments": environments.describe_service_environments,
    "CreateJobQueue": queues.create_job_queue,
    "UpdateJobQueue": queues.update_job_queue,
    "DeleteJobQueue": queues.delete_job_queue,
    "DescribeJobQueues": queues.describe_job_queues,
    "CreateQuotaShare": shares.create_quota_share,
    "UpdateQuotaShare": shares.update_quota_share,
    "DeleteQuotaShare": shares.delete_quota_share,
    "DescribeQuotaShare": shares.describe_quota_share,
    "ListQuotaShares": shares.list_quota_shares,
    "SubmitServiceJob": service_jobs.submit_service_job,
    "DescribeServiceJob": service_jobs.describe_service_job,
    "ListServiceJobs": job_listing.list_service_jobs,
    "UpdateServiceJob": service_jobs.update_service_job,
    "TerminateServiceJob": service_jobs.terminate_service_job,
    "TerminateServiceJobs": service_jobs.terminate_service_jobs,
    "GetJobQueueSnapshot": snapshot.get_job_queue_snapshot,
    "TagResource": tags.tag_resource,
    "UntagResource": tags.untag_resource,
    "ListTagsForResource": tags.list_tags_for_resource,
}

READ_ONLY = frozenset(name for name in HANDLERS if name.startswith(("Describe", "List", "Get")))
