"""``status -o json``, format version 1 (fields are only ever added within a version)::

    {"format_version": "1", "at": "2026-12-01T10:00:00Z",
     "queues": [{"name", "capacity": {instance type: n},
                 "shares": [{"name", "team", "sharing", "borrow_limit", "in_share_preemption",
                             "state",
                             "capacity": [{"instance_type", "limit", "in_use", "own",
                                           "borrowed", "idle", "lent", "headroom"}],
                             "jobs": {status: n, for SUBMITTED, RUNNABLE, SCHEDULED,
                                      STARTING and RUNNING},
                             "preempted_24h", "head": {"job_id", "name", "wait_code"} | null}],
                 "borrowing": [{"instance_type", "borrower", "lender", "instances"}]}],
     "teams": [{"name", "capacity": [{"instance_type", "limit", "in_use", "borrowed",
                                      "lent"}]}],
     "budgets": [{"team", "instance_type", "over", "used", "limit", "ratio", "exceeded",
                  "overshoot", "resets"}],
     "governed": [{"address", "policy", "until", "enabled", "overdue"}]}

``budgets`` and ``governed`` are read from the governor's tags on the shares
(``quotactl:budget``, ``quotactl:governed``); empty where no governor runs.

``lent`` and ``instances`` are shares of pooled capacity: an integer when whole, else a number
of 2 decimals, rounded by largest remainders so that, per queue and instance type, the shares'
``lent`` and the unattributed borrowing add up to their ``borrowed``, and each borrower's pairs
to its ``borrowed``. Borrowing no lender's idle capacity covers (limits lowered, or a lender
turned RESERVE, while the capacity was borrowed) is a pair with ``"lender": null``.
``borrow_limit`` is a percent, -1 for unlimited, null for shares that do not borrow.
``sharing`` is AWS's strategy (RESERVE, LEND, LEND_AND_BORROW); ``state`` ENABLED or
DISABLED.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.outputs import Output
from quotactl.core.states import State
from quotactl.core.status.report import StatusReport
from quotactl.render.status_parts import displayed
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from fractions import Fraction

    from quotactl.core.status.report import QueueStatus, ShareStatus

FORMAT_VERSION = "1"
NUMBER_PLACES = 2
"""Decimals of a share of pooled instances in JSON (``number``)."""


@view(StatusReport, Output.JSON)
def show_status_json(report: StatusReport, screen: Screen) -> None:
    """``status -o json``: one document."""
    screen.write_json(status_document(report))


def status_json(report: StatusReport) -> str:
    return json.dumps(status_document(report), indent=2)


def status_document(report: StatusReport) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "at": iso_time(report.at),
        "queues": [_queue(displayed(q, NUMBER_PLACES)) for q in report.queues],
        "teams": [
            {
                "name": team.name,
                "capacity": [
                    {
                        "instance_type": r.instance_type,
                        "limit": r.limit,
                        "in_use": r.in_use,
                        "borrowed": r.borrowed,
                        "lent": number(r.lent),
                    }
                    for r in team.capacity
                ],
            }
            for team in report.teams
        ],
        "budgets": [row.to_dict() for row in report.governance.budgets],
        "governed": [row.to_dict() for row in report.governance.governed],
    }


def _queue(queue: QueueStatus) -> dict[str, Any]:
    return {
        "name": queue.name,
        "capacity": dict(queue.capacity),
        "shares": [_share(s) for s in queue.shares],
        "borrowing": [
            {
                "instance_type": b.instance_type,
                "borrower": b.borrower,
                "lender": b.lender,
                "instances": number(b.instances),
            }
            for b in queue.borrowing
        ],
    }


def _share(share: ShareStatus) -> dict[str, Any]:
    return {
        "name": share.name,
        "team": share.team,
        "sharing": share.sharing.value,
        "borrow_limit": share.borrow_limit,
        "in_share_preemption": share.in_share_preemption,
        "state": State.ENABLED if share.enabled else State.DISABLED,
        "capacity": [
            {
                "instance_type": r.instance_type,
                "limit": r.limit,
                "in_use": r.in_use,
                "own": r.own,
                "borrowed": r.borrowed,
                "idle": r.idle,
                "lent": number(r.lent),
                "headroom": r.headroom,
            }
            for r in share.capacity
        ],
        "jobs": dict(share.jobs),
        "preempted_24h": share.preempted_24h,
        "head": None
        if share.head is None
        else {
            "job_id": share.head.job_id,
            "name": share.head.name,
            "wait_code": share.head.wait_code,
        },
    }


def number(value: Fraction) -> int | float:
    """An exact share of instances: an int when whole, else rounded to 2 decimals."""
    if value.denominator == 1:
        return int(value)
    return round(float(value), 2)


def iso_time(at: float) -> str:
    """Epoch seconds -> ISO 8601 UTC to the second (``2026-12-01T10:00:00Z``)."""
    return datetime.fromtimestamp(int(at), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
