"""The one order of jobs: who a share dispatches first, and who is preempted first.

Every side that schedules or predicts uses these keys: the emulator's engines (kept between
requests or rebuilt from the state file), ``simulate``, and the previews built from what
ListServiceJobs and DescribeServiceJob report (``submit --dry-run``, ``job priority``, the
plan's runtime impact and the disruption guard). So they are made only of what every side
sees of a job, at AWS's resolution of milliseconds: ``schedulingPriority``, ``createdAt``,
the current attempt's start (``scheduledAt``, when it took its instances) and the job ID.
The engine's insertion order never decides. docs/scheduling.md, "The order of jobs", gives
the rules and where they come from.

* **Dispatch** (inside a share): higher priority first, then earlier ``createdAt``, then the
  lower job ID. Across shares (which head goes first) the same without the priority.
* **Victims**: lowest priority first, then the most recently started, then the most recently
  created, then the higher job ID: among equals, the job that would be dispatched last is
  preempted first.

For speed the engine keeps, per job, one integer that orders as (``createdAt`` ms, job ID):
``submission_rank``, computed once when the job enters the engine (``Job._rank``).
"""

from __future__ import annotations

import struct

ID_BYTES = 40
"""Bytes of a job ID that take part in the order (AWS's job IDs are 36-character UUIDs)."""

RANK = struct.Struct(f">Q{ID_BYTES}sQ")
"""A submission rank's bytes, most significant first: ``createdAt`` in milliseconds, the job
ID's first ``ID_BYTES`` bytes (padded with zero bytes, so shorter IDs sort first as text
does), and the engine's arrival number, which only keeps two jobs with the same
``createdAt`` and ID apart (a hand-written trace may repeat a name): it never decides
between jobs AWS would tell apart."""

RANK_SPAN = 1 << (8 * RANK.size)
"""Every ``Job._rank`` is below this: a share's queue packs the priority above it."""


def ms(seconds: float | None) -> int:
    """Epoch seconds -> the whole milliseconds AWS reports (None counts as 0)."""
    return 0 if seconds is None else round(seconds * 1000)


def submission_rank(created_at: float | None, job_id: str, arrival: int = 0) -> int:
    """An integer ordered as (``createdAt`` in milliseconds, job ID): submission order.

    The ID compares as its UTF-8 bytes (for AWS's lowercase UUIDs, as the string does).
    """
    created = ms(created_at)
    return int.from_bytes(RANK.pack(created if created > 0 else 0, job_id.encode(), arrival))


def dispatch_key(priority: int | None, created_at: float | None, job_id: str) -> tuple[int, int]:
    """A share's dispatch order: higher priority first, then submission order."""
    return (-(priority or 0), submission_rank(created_at, job_id))


def victim_key(
    priority: int | None, started_at: float | None, created_at: float | None, job_id: str
) -> tuple[int, int, int]:
    """Preemption order: lowest priority, then latest started, then latest submitted."""
    return (priority or 0, -ms(started_at), -submission_rank(created_at, job_id))
