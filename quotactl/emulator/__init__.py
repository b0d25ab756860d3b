"""The embedded AWS Batch quota-management account: ``--backend local`` and ``local serve``.

Layers (moto's split, minus its globals): ``wire`` (routes from botocore's model, rest-json
in and out) -> ``handlers`` (one function per operation, named after it) -> ``store`` (the
SQLite file, one transaction per request), ``transaction`` and ``job_rows`` (typed reads and
writes) with ``models`` and ``service_job`` (records and their API shapes) -> ``errors``
(AWS's error codes). Service jobs are scheduled by ``quotactl.core.engine``, one engine per
job queue (``engines``), through ``jobs`` (translation between stored jobs and the engine)
and ``tick`` (the events that fall due); ``lifecycle`` is the resource status steps. Two ways
in share every handler: ``hook.BotocoreHook`` (in-process, botocore's ``before-send`` event)
and ``server.EmulatorServer`` (HTTP, ``local serve``).

The service-job lifecycle, its timing, the cost of a request and every job-related choice
where AWS is silent are documented in docs/emulator.md ("Service jobs").

Choices where AWS's documentation is silent (the rest are in docs/emulator.md)
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
- Requests are checked against botocore's input shapes before any handler (``shapes``:
  int32 for ``integer`` without a ``max``, case-sensitive enums unless AWS's reference says
  otherwise (``evaluateOnExit[].action``), ``null`` refused, strict
  JSON at most 32 levels deep), then AWS's documented rules (``validate``); every failure is
  a 400 ClientException naming the member path. Throttling (``submit_tps``) comes first.
- An ARN of another partition, region or account "does not exist".
- The account is 123456789012 in the region the state file was created for (us-east-1 by
  default); the emulated clock starts at the wall time the state was created.
"""

from quotactl.emulator.service import Advanced, Emulator, delete_state

__all__ = ["Advanced", "Emulator", "delete_state"]
