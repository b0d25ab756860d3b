"""A fixed trace gives the same decisions and the same report, bit for bit, release after release.

The engine's hot paths are tuned for speed; this pins what they decide. Two fixed synthetic
traces (``generate_trace``, fixed seeds) run through the simulator, and one through the
engine with the emulator's timing and transitions recorded. Their results are compared with
``simulation_golden.json``, recorded before the engine was last optimised: the metrics
exactly (floats included), the transitions as a count and a SHA-256 of their text. A change
of scheduling behaviour must be deliberate: regenerate the file with
``python tests/core/test_simulation_determinism.py`` and say why in the commit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from quotactl.core.engine import TIMING, Job, QueueEngine, QueueModel, ShareModel, Timing
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import generate_trace, simulate, summarise
from tests.conftest import TEST_TIMING

GOLDEN = Path(__file__).with_name("simulation_golden.json")
TYPES = {"ml.p5.48xlarge": 4, "ml.g5.12xlarge": 12, "ml.m5.xlarge": 24}
STRATEGIES = (Strategy.LEND_AND_BORROW, Strategy.LEND, Strategy.RESERVE)


def fixed_queue(name: str, shares: int, *, all_in_share: bool) -> QueueModel:
    """``shares`` teams over 3 types with mixed strategies, borrow limits and preemption."""
    models = []
    for i in range(shares):
        limits = {
            t: max(1, base * (1 + (i * 7 + j * 3) % 5) // 3)
            for j, (t, base) in enumerate(TYPES.items())
        }
        models.append(
            ShareModel(
                name=f"team{i:02d}",
                limits=limits,
                strategy=STRATEGIES[i % 3],
                borrow_limit=(100, -1, 50)[i % 3],
                in_share_preemption=all_in_share or i % 3 == 0,
                team=f"team{i:02d}",
            )
        )
    capacity = {t: sum(s.limits[t] for s in models) for t in TYPES}
    return QueueModel(name, capacity, tuple(models))


def simulated(queues: list[QueueModel], jobs: int, seed: int) -> object:
    """The report of a simulation, as JSON-ready data."""
    result = summarise(simulate(queues, generate_trace(queues, jobs, seed), "fixed", TEST_TIMING))
    document = dataclasses.asdict(result)
    assert document.pop("timeline") is None  # only a recording run (--report) has one
    assert document.pop("governed") is None  # only a run that applies policies has these
    for share in document["shares"]:
        assert share.pop("refused") is None
    return json.loads(json.dumps(document))


def emulated(queue: QueueModel, jobs: int, seed: int, timing: Timing = TIMING) -> dict[str, object]:
    """Every transition of the engine with the emulator's timing, as count and digest."""
    engine = QueueEngine(queue, timing=timing)
    rows = list(generate_trace([queue], jobs, seed))
    for at, share, itype, count, duration, priority, name, _ in rows:
        engine.advance_to(at)
        engine.submit(Job(name, share, itype, count, priority, at, duration))
        engine.schedule(at)
    engine.advance_to(rows[-1][0] + 30 * 86_400)
    transitions = engine.transitions or []
    text = "\n".join(
        f"{t.job_id} {t.at!r} {t.status} {t.reason} {t.borrowed} {t.preempted_attempt}"
        for t in transitions
    )
    return {"count": len(transitions), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def observed() -> dict[str, object]:
    preempting = fixed_queue("train", 12, all_in_share=True)
    mixed = [fixed_queue("a", 8, all_in_share=False), fixed_queue("b", 5, all_in_share=True)]
    return {
        "preemption": simulated([preempting], 6_000, seed=3),
        "two_queues": simulated(mixed, 6_000, seed=11),
        "emulator_transitions": emulated(fixed_queue("emu", 8, all_in_share=True), 2_000, 5),
    }


def test_a_fixed_trace_gives_the_recorded_metrics_and_transitions() -> None:
    expected = json.loads(GOLDEN.read_text())
    actual = observed()
    assert actual["emulator_transitions"] == expected["emulator_transitions"]
    assert actual["preemption"] == expected["preemption"]
    assert actual["two_queues"] == expected["two_queues"]


def test_without_windows_the_engine_decides_as_before_they_existed() -> None:
    """Zero preemption and termination windows: the transitions recorded before the windows
    were modelled, unchanged."""
    queue = fixed_queue("emu", 8, all_in_share=True)
    found = emulated(queue, 2_000, 5, Timing(5.0, 30.0, True, 0.0, 0.0))
    assert found == {
        "count": 11444,
        "sha256": "ab8cdb53b8d08dcee81e0d74420db432b2640ec75a306a56222e5c3c0231f6a1",
    }


def test_the_fixed_traces_exercise_preemption() -> None:
    expected = json.loads(GOLDEN.read_text())
    for run in ("preemption", "two_queues"):
        shares = expected[run]["shares"]
        assert sum(s["preemptions"] for s in shares) > 100
        assert sum(s["borrowed_hours"] for s in shares) > 0


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(observed(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
