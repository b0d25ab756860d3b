"""A governed replay: the configuration's policies applied on the virtual clock.

- An engine rebuilt mid-replay with its own settings (what a share update does, as the
  emulator rebuilds a queue's engine after UpdateQuotaShare) decides exactly what it would
  have decided without the rebuild, whatever the instants: the rebuild loses nothing (queued
  jobs, running ones and their end times, victims in their preemption window, meters).
- A schedule window is applied at its boundary and restored at its end, on the instants the
  window names from ``start``; a job sent while a window disables its share is refused and
  counted, never dropped; without policies the figures are those of an ungoverned replay.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl import api
from quotactl.core.engine import TIMING, Job
from quotactl.core.simulate import generate_trace, simulate, summarise
from quotactl.core.simulate.governed import Governance, rebuild
from quotactl.core.simulate.metered import MeteredEngine
from quotactl.core.simulate.queues import queue_models
from quotactl.core.states import JobStatus
from tests.core.test_simulation_determinism import fixed_queue

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.engine import QueueModel
    from quotactl.core.simulate.trace import TraceRow

MONDAY = datetime(2026, 12, 7, tzinfo=UTC)
P5 = "ml.p5.48xlarge"


def _replayed(
    queues: list[QueueModel], rows: list[TraceRow], rebuilds: set[int]
) -> tuple[object, ...]:
    """A plain replay loop over ``rows`` (timers, the arrival, a pass), rebuilding the
    engine with its own settings before the arrivals numbered in ``rebuilds``."""
    engine = MeteredEngine(queues, TIMING)
    for i, (at, share, itype, count, duration, priority, name, _) in enumerate(rows):
        engine.advance_to(at)
        if i in rebuilds:
            rebuild(engine, queues, at)
        engine.now = at
        job = Job(name, f"{queues[0].name}/{share}", f"{queues[0].name}/{itype}", count)
        job.priority, job.submitted_at, job.run_seconds = priority, at, duration
        job.status, job.status_since = JobStatus.RUNNABLE, at
        engine.submit(job)
        engine.submitted[job._s] += 1
        engine.schedule(at)
    end = rows[-1][0] + 30 * 86400
    engine.advance_to(end)
    return engine.close(max(end, engine.last_finish))[0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 1000),
    rebuilds=st.sets(st.integers(0, 399), max_size=40),
)
def test_a_rebuild_with_the_same_settings_changes_no_decision(
    seed: int, rebuilds: set[int]
) -> None:
    queues = [fixed_queue("train", 6, all_in_share=seed % 2 == 0)]
    rows = list(generate_trace(queues, 400, seed))
    plain = _replayed(queues, rows, set())
    rebuilt = _replayed(queues, rows, rebuilds)
    for before, after in zip(plain, rebuilt, strict=True):
        assert before.submitted == after.submitted  # type: ignore[attr-defined]
        assert before.finished == after.finished  # type: ignore[attr-defined]
        assert before.stuck == after.stuck  # type: ignore[attr-defined]
        assert before.preemptions == after.preemptions  # type: ignore[attr-defined]
        assert sorted(before.waits) == sorted(after.waits)  # type: ignore[attr-defined]
        for name in ("own_seconds", "borrowed_seconds", "lent_seconds", "discarded_seconds"):
            assert math.isclose(getattr(before, name), getattr(after, name), rel_tol=1e-9), name


CONFIG = """
platform: {name: gov, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 8}
queues:
  - name: training
    environment: pool
teams:
  - name: research
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: lend_and_borrow
        schedule:
          - name: mornings
            when: {days: [mon], hours: "06:00-12:00"}
            capacity: {ml.p5.48xlarge: 6}
          - name: closed
            when: {days: [mon], hours: "14:00-16:00"}
            enabled: false
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 6}
        sharing: lend
"""


def _config(tmp_path: Path) -> object:
    path = tmp_path / "gov.yaml"
    path.write_text(CONFIG)
    return api.load([path]).desired


def _rows() -> list[TraceRow]:
    """Research sends a 1-instance, 1-hour job every 10 minutes from 00:00 to 18:00."""
    return [
        (i * 600.0, "research", "ml.p5.48xlarge", 1, 3600.0, 0, f"r{i}", i + 2) for i in range(108)
    ]


def test_a_window_is_applied_at_its_boundary_and_restored_and_a_disabled_share_refuses(
    tmp_path: Path,
) -> None:
    desired = _config(tmp_path)
    queues = tuple(queue_models(desired))  # type: ignore[arg-type]
    governed = summarise(
        simulate(queues, iter(_rows()), "t", TIMING, governance=Governance(desired, MONDAY))  # type: ignore[arg-type]
    )
    taken = [(t.at / 3600, t.action.policy, dict(t.action.after)) for t in governed.governed or ()]
    assert taken[0] == (6.0, "schedule:mornings", {"capacity": {"ml.p5.48xlarge": 6}})
    # at noon the lowering back to 2 would preempt: held at the 6 running jobs hold, blocked
    # (and logged so) at every cycle until the next window
    assert taken[1] == (12.0, "schedule:mornings", {"capacity": {"ml.p5.48xlarge": 6}})
    closing = [t for t in taken if t[0] == 14.0]
    assert closing == [(14.0, "schedule:closed", {"capacity": {P5: 6}, "enabled": False})]
    # disabled, it takes no new job: the lowering finishes as the running ones end
    assert [t[2]["capacity"][P5] for t in taken if 14.0 < t[0] < 16.0][-1] == 2
    assert taken[-1] == (16.0, "schedule:closed", {"enabled": True})
    research = next(s for s in governed.shares if s.share == "research")
    assert research.refused == 12  # two hours of one job every 10 minutes
    assert research.submitted == 108 - 12
    plain = summarise(simulate(queues, iter(_rows()), "t", TIMING))
    plain_research = next(s for s in plain.shares if s.share == "research")
    assert plain_research.refused is None
    assert plain_research.submitted == 108
    assert governed.governed is not None
    assert plain.governed is None
