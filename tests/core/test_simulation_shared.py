"""Job queues on one service environment replay through the same loop as queues on their own:
uncontended, they give the per-queue figures and timeline; recorded, they draw a report; a row
for a share that takes no jobs is the one trace error, worded alike."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import generate_trace, simulate, summarise
from quotactl.errors import TraceError
from quotactl.render.report.whatif import simulation_html

G5, P5 = "ml.g5.12xlarge", "ml.p5.48xlarge"


def _queue(name: str) -> QueueModel:
    """Shares that RESERVE half of the capacity between them: two such queues never contend."""
    shares = (
        ShareModel("a", {G5: 2, P5: 1}, Strategy.RESERVE, in_share_preemption=True),
        ShareModel("b", {G5: 2}, Strategy.RESERVE),
    )
    return QueueModel(name, {G5: 8, P5: 2}, shares)


ALONE = (_queue("training"), _queue("evaluation"))
SHARED = (
    replace(ALONE[0], environment="pool", priority=1),
    replace(ALONE[1], environment="pool", priority=10),
)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_uncontended_queues_on_one_environment_replay_as_on_their_own(seed: int) -> None:
    rows = list(generate_trace(ALONE, 3000, seed))
    alone = summarise(simulate(ALONE, iter(rows), "t.csv", record=True))
    shared = summarise(simulate(SHARED, iter(rows), "t.csv", record=True))
    assert shared.timeline is not None
    assert shared == alone


def test_a_recorded_replay_of_queues_on_one_environment_draws_a_report() -> None:
    contended = tuple(replace(q, capacity={G5: 4, P5: 1}) for q in SHARED)
    rows = generate_trace(contended, 2000, 4)
    plain = summarise(simulate(contended, rows, "t.csv"))
    recorded = summarise(
        simulate(contended, generate_trace(contended, 2000, 4), "t.csv", record=True)
    )
    assert recorded.timeline is not None
    assert replace(recorded, timeline=None) == plain
    assert [(s.queue, s.share) for s in recorded.timeline.shares] == [
        ("training", "a"),
        ("training", "b"),
        ("evaluation", "a"),
        ("evaluation", "b"),
    ]
    page = simulation_html(recorded, trace="t.csv", config="pool")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<figure>") == page.count("<svg") > 0
    assert "training" in page
    assert "evaluation" in page


@pytest.mark.parametrize("queues", [ALONE, SHARED], ids=["alone", "shared"])
@pytest.mark.parametrize(
    ("share", "message"),
    [
        ("gamma", "t.csv:2: no quota share 'gamma' in the configuration"),
        ("training/off", "t.csv:2: quota share training/off is disabled (it takes no new jobs)"),
    ],
)
def test_a_row_for_a_share_that_takes_no_jobs_is_one_error(
    queues: tuple[QueueModel, ...], share: str, message: str
) -> None:
    off = ShareModel("off", {G5: 1}, enabled=False)
    queues = (replace(queues[0], shares=(*queues[0].shares, off)), queues[1])
    rows = [(0.0, share, G5, 1, 60.0, 0, "j1", 2)]
    with pytest.raises(TraceError) as caught:
        simulate(queues, rows, "t.csv")
    assert caught.value.message == message
    if share == "gamma":
        assert caught.value.hint == (
            "shares are evaluation/a, evaluation/b, training/a, training/b, training/off"
        )
