"""The strict variant: at every choice where AWS is silent, the reading least convenient to a
client (docs/emulator.md, "Where AWS is silent: the emulator's choices", has the table).

It changes only what the API returns and when, never the scheduling engine:

- no ``tags`` in ListQuotaShares' items (``handlers/shares.py``);
- no emulated-clock header, only ``Date`` (``service.py``);
- GetJobQueueSnapshot's ``lastUpdatedAt`` as old as the data (``handlers/snapshot.py``);
- a repeated clientToken is a ClientException (``handlers/service_jobs.py``);
- a created resource or submitted job stays out of listings for ``list_lag`` listing reads,
  and at most ``LAG_SECONDS`` of emulated time (eventual consistency is a matter of seconds
  on AWS: a job submitted an hour ago is listed) (stored in the state file, so deterministic
  across processes) (here);
- SubmitServiceJob limited to 5 a second (``faults.py``'s ``submit_tps``);
- no job-level ``startedAt`` on a job that has not started its current attempt (here).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from quotactl.core.states import QUEUED, JobStatus
from quotactl.emulator.wire import rest_json as wire

if TYPE_CHECKING:
    from collections.abc import Callable

DEFAULT = "default"
STRICT = "strict"
VARIANTS = (DEFAULT, STRICT)
STRICT_LIST_LAG = 2
LAG_SECONDS = 5.0
"""The longest a creation lags, in emulated seconds, whatever reads are left."""
"""Listing reads a created resource or submitted job is left out of, under strict."""
STRICT_SUBMIT_TPS = 5.0
"""AWS's SubmitServiceJob limit, on under strict."""

LAGGED = {
    "DescribeServiceEnvironments": ("serviceEnvironments", "serviceEnvironmentArn"),
    "DescribeJobQueues": ("jobQueues", "jobQueueArn"),
    "DescribeSchedulingPolicies": ("schedulingPolicies", "arn"),
    "ListSchedulingPolicies": ("schedulingPolicies", "arn"),
    "ListQuotaShares": ("quotaShares", "quotaShareArn"),
    "ListServiceJobs": ("jobSummaryList", "jobArn"),
}
"""The listings that lag creations: operation -> (list member, the item's ARN member)."""

CREATED = {
    "CreateServiceEnvironment": "serviceEnvironmentArn",
    "CreateJobQueue": "jobQueueArn",
    "CreateSchedulingPolicy": "arn",
    "CreateQuotaShare": "quotaShareArn",
    "SubmitServiceJob": "jobArn",
}
"""The writes whose result a strict listing shows only after ``list_lag`` reads."""

NOT_STARTED = frozenset({*QUEUED, JobStatus.SCHEDULED})


def check(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"unknown emulator variant {variant!r}: expected one of {VARIANTS}")
    return variant


def _item(value: Any) -> dict[str, Any]:
    return json.loads(value) if isinstance(value, str) else dict(value)


def _unstarted(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("status") in NOT_STARTED:
        item.pop("startedAt", None)
    return item


def strict_answer(operation: str, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` as the strict variant answers it: jobs without a ``startedAt`` before their
    current attempt starts."""
    if operation == "DescribeServiceJob":
        return _unstarted(dict(result))
    if operation != "ListServiceJobs":
        return result
    return _listed(operation, result, _unstarted)


def lagged(
    operation: str, result: dict[str, Any], lagging: dict[str, Any], now: float
) -> dict[str, Any]:
    """A listing's ``result`` without the items that still lag at ``now`` (``lagging``: ARN
    -> [reads left, emulated time it lags until])."""
    if operation not in LAGGED or not lagging:
        return result
    arn = LAGGED[operation][1]
    still = {key for key, entry in lagging.items() if _lags(entry, now)}
    return _listed(operation, result, lambda item: None if item.get(arn) in still else item)


def _lags(entry: Any, now: float) -> bool:
    # an entry of a state file written before the time bound is a bare count of reads
    return isinstance(entry, int) or now < float(entry[1])


def _listed(
    operation: str, result: dict[str, Any], each: Callable[[dict[str, Any]], dict[str, Any] | None]
) -> dict[str, Any]:
    """``result`` with ``each`` applied to its listed items (None: left out)."""
    member = LAGGED[operation][0]
    items = result.get(member)
    if items is None:
        return result
    kept = [out for out in map(each, map(_item, items)) if out is not None]
    out = dict(result)
    if isinstance(items, wire.StoredJSON):
        out[member] = wire.StoredJSON(json.dumps(i, separators=(",", ":")) for i in kept)
    else:
        out[member] = kept
    return out


def after_read(lagging: dict[str, Any], now: float) -> dict[str, Any]:
    """One listing read has been answered at ``now``: each lagging item is one read closer,
    and those whose time is up are listed from now on."""
    kept: dict[str, Any] = {}
    for key, entry in lagging.items():
        reads, until = (entry, now + LAG_SECONDS) if isinstance(entry, int) else entry
        if reads > 1 and now < until:
            kept[key] = [reads - 1, until]
    return kept
