"""The embedded AWS Batch quota-management account: ``--backend local`` and ``local serve``.

Layers (moto's split, minus its globals): ``wire`` (routes from botocore's model, rest-json
in and out) -> ``handlers`` (one function per operation, named after it) -> ``store``
(SQLite, one transaction per request) with ``models`` (records and their API shapes) ->
``errors`` (AWS's error codes). ``jobs`` is the one job state machine, ``lifecycle`` the
resource status steps, ``tick`` drives both in emulated time, ``scheduling`` is the seam to
a scheduling policy. Two ways in share every handler: ``hook.BotocoreHook`` (in-process,
botocore's ``before-send`` event) and ``server.EmulatorServer`` (HTTP, ``local serve``).

The scheduler seam
------------------
On each tick, for every queue with RUNNABLE jobs, ``jobs.view_of`` builds an immutable
``scheduling.QueueView`` (environment capacity, shares with limits/strategy/borrow limit/
in-share preemption/state, unfinished jobs with status/priority/share/capacity/submission
order and time/start time/duration/preemption retries) and calls
``Scheduler.schedule(view, now)``; it returns ``Dispatch(job_id)``, ``Preempt(job_id, reason)``
and ``Hold(job_id, reason)`` values that ``jobs.apply`` carries out (retries, preemption
summaries and FAILED after ``preemptionRetriesBeforeTermination`` stay in ``jobs``). The
scheduler is ``engine_scheduler.EngineScheduler``: the engine of SPEC §6
(``quotactl.core.engine``, shared with ``simulate``) on a snapshot of the queue, one pass per
tick. ``tick.advance`` (``local advance``) and ``tick.catch_up`` (each request while
``local serve --speed`` runs the clock) walk emulated time from event to event, so capacity a
job frees at ``t`` is handed on at ``t``.

Choices where AWS's documentation is silent (reference "UNCONFIRMED")
--------------------------------------------------------------------
- Status steps (CREATING/UPDATING -> VALID, DELETING -> gone) complete at the first request
  at least ``status_delay`` emulated seconds later (default 0: the next request), never in
  the request that began them; INVALID is never produced. Changes to a resource that is not
  settled are refused. A deleted resource is gone: describing a deleted share raises
  ClientException, Describe* of environments and queues leave it out.
- Service environments and quota shares take 1-5 capacity limits (the console's rule), each
  a SageMaker training instance type (botocore's SageMaker model) or, for environments that
  serve no quota-management queue, NUM_INSTANCES. A share may name an instance type its
  environment lacks (its jobs then wait as SERVICE_ENVIRONMENT_MAX_RESOURCE); the sum of
  share limits is not checked against the environment.
- borrowLimit with RESERVE or LEND is rejected; UpdateQuotaShare replaces the whole
  capacityLimits list; a strategy change without borrowLimit resets it to unlimited.
- A quota-management queue may swap its policy for another quota-share policy, never for a
  fair-share one. DeleteJobQueue does not require its shares to be deleted first: they go
  with the queue and every unfinished job of the queue is terminated.
- Duplicate names answer exactly "Object already exists" (the SDK sample compares it).
- Service jobs never enter PENDING. UpdateServiceJob accepts any unfinished job. A
  terminated job (any unfinished status) ends FAILED with isTerminated and the reason as
  statusReason; terminating a finished job is a no-op. recentPreemptedAttempts keeps the
  5 newest, newest first. A job over its preemptionRetriesBeforeTermination fails with
  "Terminated after preemption: preemptionRetriesBeforeTermination=<n> used up. <reason>";
  in-share preemption says "In-share preemption triggered by a higher-priority job" (both
  texts are the engine's, shared with ``simulate``). Each attempt is a training job named
  ``AWSBatch<jobName[:23]><32 hex>``.
- Requests are checked against botocore's input shapes before any handler (``shapes``:
  int32 for ``integer`` without a ``max``, case-sensitive enums, ``null`` refused, strict
  JSON at most 32 levels deep), then AWS's documented rules (``validate``); every failure is
  a 400 ClientException naming the member path. Throttling (``submit_tps``) comes first.
- An ARN of another partition, region or account "does not exist".
- serviceRequestPayload is stored as given; a payload without ResourceConfig, or whose
  ResourceConfig/StoppingCondition break SageMaker's shapes (``"InstanceCount": 1e999``),
  fails the job (FAILED, "Received status from SageMaker: ValidationException: ...") when it
  leaves SUBMITTED. InstanceGroups count each group against its own instance type; such a job
  starts only when every group can start at once.
- clientToken: the same token with the same request returns the first job; with a
  different request it is a ClientException. The 5 TPS SubmitServiceJob limit is off by
  default and turned on with the fault ``submit_tps=5``.
- ListServiceJobs: newest first, always; no jobQueue lists every queue; with a
  QUOTA_SHARE_NAME or SHARE_IDENTIFIER filter and no jobStatus every status is listed.
- The account is 123456789012 in the region the state file was created for (us-east-1 by
  default); the emulated clock starts at the wall time the state was created.
"""

from quotactl.emulator.service import Advanced, Emulator, delete_state

__all__ = ["Advanced", "Emulator", "delete_state"]
