"""Where a job's run time comes from: the duration tag, a share's history, or its time limit."""

from __future__ import annotations

from random import Random

from hypothesis import given, strategies as st

from quotactl.core.estimate import Basis, ShareHistory, live_history
from quotactl.core.estimate.runtimes import known_run, time_limit
from quotactl.core.resources.observed import LiveJob
from quotactl.core.states import JobStatus


def _job(**fields: object) -> LiveJob:
    return LiveJob("j", "j", "q", "a", JobStatus.RUNNABLE, **fields)  # type: ignore[arg-type]


@given(
    st.lists(st.floats(0, 1e6), min_size=1, max_size=50),
    st.floats(0, 1e6),
    st.integers(0, 2**32),
)
def test_a_draw_for_a_running_job_is_longer_than_what_it_has_run(
    runs: list[float], elapsed: float, seed: int
) -> None:
    history = ShareHistory.of(("a", r) for r in runs)
    drawn = history.draw("a", Random(seed), elapsed)
    if any(r > elapsed for r in runs):
        assert drawn is not None
        assert drawn > elapsed
        assert drawn in runs
    else:
        assert drawn is None  # nothing that long: the caller falls back to the time limit


def test_a_share_without_history_draws_nothing() -> None:
    history = ShareHistory.of([("a", 60.0)])
    assert history.has("a")
    assert not history.has("b")
    assert history.draw("b", Random(0), 0.0) is None


def test_the_emulator_runs_a_tagged_job_as_long_as_the_tag_cut_by_its_limits() -> None:
    assert known_run(_job(duration=600.0)) == 600.0
    assert known_run(_job(duration=600.0, max_runtime=300.0)) == 300.0
    assert known_run(_job(duration=600.0, attempt_timeout=200.0, max_runtime=300.0)) == 200.0
    assert known_run(_job(duration=2 * 86400.0)) == 2 * 86400.0  # no limit: the tag
    assert known_run(_job(max_runtime=300.0)) is None


def test_the_time_limit_is_max_runtime_else_a_day_and_the_timeout_cuts_it() -> None:
    assert time_limit(_job()) == 86400.0
    assert time_limit(_job(max_runtime=3600.0)) == 3600.0
    assert time_limit(_job(max_runtime=3600.0, attempt_timeout=60.0)) == 60.0


def test_the_live_history_counts_a_run_from_running() -> None:
    done = LiveJob("d", "d", "q", "a", JobStatus.SUCCEEDED, started_at=1000.0, stopped_at=1630.0)
    failed = LiveJob("f", "f", "q", "a", JobStatus.FAILED, started_at=0.0, stopped_at=50.0)
    history = live_history([done, failed], starting_seconds=30.0)
    assert history.runs == {"a": [600.0]}


def test_bases_weakest_last() -> None:
    assert max(Basis.KNOWN, Basis.HISTORY, Basis.TIME_LIMIT) is Basis.TIME_LIMIT
    assert [b.word for b in Basis] == ["known", "history", "time-limit"]
