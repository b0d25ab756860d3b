"""tune never strands work, and `simulate --compare` never hides it: over generated
configurations and traces (jobs that outgrow a share included, terminated by the queue's
runnable timeout), no proposal runs fewer of any share's jobs than the current configuration,
and every comparison in which a share runs fewer of its jobs names that share LOSING first."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, event, given, settings, strategies as st

from quotactl.config.load import load_config
from quotactl.core.engine import Timing
from quotactl.core.simulate import Replay, ShareVerdict, Side, compare, queue_models
from quotactl.core.tune import Settings, Space, replay, search

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate import SimulationResult, TraceRow

TIMING = Timing()
TYPE = "ml.g5.12xlarge"
STRATEGIES = ("reserve", "lend", "lend_and_borrow")


def _config(folder: Path, limits: Sequence[int], strategies: Sequence[str]) -> Path:
    root = folder / "configs"
    root.mkdir()
    teams = "".join(
        f"  - name: t{i}\n    shares:\n      - queue: training\n"
        f"        capacity: {{{TYPE}: {n}}}\n        sharing: {strategy}\n"
        for i, (n, strategy) in enumerate(zip(limits, strategies, strict=True))
    )
    (root / "platform.yaml").write_text(
        "platform: {name: gen, region: us-east-1}\n"
        f"environments:\n  - name: pool\n    capacity: {{{TYPE}: {sum(limits)}}}\n"
        "queues:\n  - name: training\n    environment: pool\n"
        "    runnable_timeout:\n      seconds: 3600\n      reasons:\n"
        "        - MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED\n"
        "        - MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE\n"
        f"teams:\n{teams}"
    )
    return root


world = st.integers(2, 3).flatmap(
    lambda shares: st.tuples(
        st.lists(st.integers(1, 4), min_size=shares, max_size=shares),
        st.lists(st.sampled_from(STRATEGIES), min_size=shares, max_size=shares),
        st.lists(
            st.tuples(
                st.integers(0, 3 * 3600),  # submit time
                st.integers(0, shares - 1),
                st.integers(1, 4),  # instances: may outgrow a share
                st.integers(600, 4 * 3600),
            ),
            min_size=5,
            max_size=40,
        ),
    )
)


def _rows(drawn: Sequence[tuple[int, int, int, int]]) -> list[TraceRow]:
    rows: list[TraceRow] = []
    for line, (at, share, count, duration) in enumerate(sorted(drawn), start=2):
        rows.append((float(at), f"t{share}", TYPE, count, float(duration), 0, f"j{line}", line))
    return rows


def _finished(result: SimulationResult) -> dict[str, tuple[int, int]]:
    return {s.share: (s.finished, s.not_run) for s in result.shares}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(world)
def test_no_proposal_strands_work_and_every_loss_of_jobs_is_named_first(
    drawn: tuple[list[int], list[str], list[tuple[int, int, int, int]]],
) -> None:
    limits, strategies, jobs = drawn
    rows = _rows(jobs)
    with tempfile.TemporaryDirectory() as folder:
        desired = load_config([_config(Path(folder), limits, strategies)]).desired

    def evaluate(batch: Sequence[DesiredState]) -> list[SimulationResult]:
        return [replay(tuple(queue_models(d)), rows, "t.csv", TIMING) for d in batch]

    result = search(desired, Space.of(desired, "training"), Settings(budget=12), evaluate)
    current = result.current
    today = _finished(current.result)
    for trial in result.front:
        for share, (finished, not_run) in _finished(trial.result).items():
            assert finished >= today[share][0], (trial.index, share)
            assert not_run <= today[share][1], (trial.index, share)
    before = Replay(Side("current", tuple(queue_models(current.desired))), current.result)
    for trial in result.trials[1:]:
        after = Replay(Side("candidate", tuple(queue_models(trial.desired))), trial.result)
        comparison = compare(before, after)
        fewer = [
            s
            for s in comparison.shares
            if s.before and s.after and s.after.finished < s.before.finished
        ]
        for s in fewer:
            assert s.outcome is ShareVerdict.LOSES
            assert "no longer run" in (s.reason or "")
            assert trial.stranding  # and tune refused it
        if fewer:
            event("a candidate runs fewer of a share's jobs")
            first = comparison.verdict.split(";")[0]
            assert " LOSES (" in first
            assert first.startswith(f"team {comparison.by_outcome(ShareVerdict.LOSES)[0].team}")
