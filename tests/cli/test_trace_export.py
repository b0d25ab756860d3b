"""``trace export`` on the emulator: a scripted history comes out as exactly the right rows,
and replaying them on the same config starts the jobs in the emulator's order, with its waits.

The workload, on 4 p5 instances (nlp LEND_AND_BORROW 2, vision LEND 2), job run times set by
the ``quotactl:duration`` tag:

    t=0     a1, a2 (nlp, 2 each, 1 h): a1 on nlp's own instances, a2 borrows vision's
    t=600   v1 (vision, 1, 30 min) reclaims: a2 is preempted (back to RUNNABLE)
    t=1200  v2 (vision, 1, 1 day), a3 (nlp, 2, 10 min): a3 waits behind a2
    t=3600  a1 ends, a2 starts again on nlp's own instances and runs its full hour
    t=7200  a2 ends, a3 starts (it waited 6000 s)
    t=7500  q1 (nlp, 2, 10 min) queues behind a3; export at t=7700

so a2 is a preempted job whose exported duration is its last attempt (3600 s), v2 and a3 are
still running (elapsed time: lower bounds) and q1 is queued (its requested time: upper bound).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from quotactl.core.simulate import simulator
from tests.cli.jobs_support import advance_clock, submit_service_job
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.engine import Job
    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
P5 = "ml.p5.48xlarge"
STACK = """\
platform: {name: history, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 4}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: lend_and_borrow
  - name: vision
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 2}
        sharing: lend
"""
EXPORTED = """\
submit_time,share,instance_type,count,duration,priority,name
0.0,training/nlp,ml.p5.48xlarge,2,3600,0,a1
0.0,training/nlp,ml.p5.48xlarge,2,3600,0,a2
600.0,training/vision,ml.p5.48xlarge,1,1800,0,v1
1200.0,training/vision,ml.p5.48xlarge,1,6500,0,v2
1200.0,training/nlp,ml.p5.48xlarge,2,500,0,a3
7500.0,training/nlp,ml.p5.48xlarge,2,600,5,q1
"""
STARTUP = 5.0 + 30.0  # the emulator's SCHEDULED and STARTING phases (TIMING)


def batch() -> Any:
    return client(Target("local", STATE, timing=TEST_TIMING))


def submit(name: str, instances: int, share: str, seconds: int, priority: int = 0) -> None:
    submit_service_job(
        STATE,
        name,
        instances,
        share,
        max_runtime=172_800,
        priority=priority,
        tags={"quotactl:duration": str(seconds)},
    )


def advance(seconds: float) -> None:
    advance_clock(STATE, seconds)


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "stack.yaml"
    config.write_text(STACK)
    assert cli("apply", str(config), "--auto-approve").exit_code == 0
    submit("a1", 2, "nlp", 3600)
    submit("a2", 2, "nlp", 3600)
    advance(600)
    submit("v1", 1, "vision", 1800)
    advance(600)
    submit("v2", 1, "vision", 86400)
    submit("a3", 2, "nlp", 600)
    advance(6300)
    submit("q1", 2, "nlp", 600, priority=5)
    advance(200)
    for _ in range(3):  # minutes pass: listings that lag a submit (strict: 2 reads) catch up
        batch().list_service_jobs(jobQueue="training")
    return config


def emulator_starts() -> dict[str, tuple[float, float]]:
    """Each job that started in the emulator: (first start, wait), seconds from the first
    submission; the first start is its first attempt's."""
    listed = batch().list_service_jobs(
        jobQueue="training", filters=[{"name": "AFTER_CREATED_AT", "values": ["0"]}]
    )["jobSummaryList"]
    origin = min(s["createdAt"] for s in listed)
    found = {}
    for summary in listed:
        detail = batch().describe_service_job(jobId=summary["jobId"])
        attempts = [a for a in detail["attempts"] if a.get("startedAt") is not None]
        if attempts:
            first = attempts[0]["startedAt"]
            found[detail["jobName"]] = (
                (first - origin) / 1000,
                (first - detail["createdAt"]) / 1000,
            )
    return found


def test_exported_rows_are_exactly_the_history(history: Path, cli: Cli) -> None:
    result = cli("trace", "export", "--out", "trace.csv")
    assert result.exit_code == 0, result.stderr
    written = [line.split(",") for line in Path("trace.csv").read_text().splitlines()]
    expected = [line.split(",") for line in EXPORTED.splitlines()]
    assert [row[:4] + row[5:] for row in written] == [row[:4] + row[5:] for row in expected]
    # a running job's duration is a lower bound, "now" less its start: under the strict
    # reading "now" is the Date header, whole seconds, so it may read a second short
    from tests.conftest import emulator_variant

    slack = 1 if emulator_variant() == "strict" else 0
    durations = [(a[4], b[4]) for a, b in zip(written[1:], expected[1:], strict=True)]
    assert all(abs(float(a) - float(b)) <= slack for a, b in durations), durations
    assert "wrote 6 jobs from training" in result.stderr
    assert "2 rows are lower bounds: jobs still running" in result.stderr
    assert "1 row is an upper bound: queued jobs" in result.stderr


def test_since_and_queue_narrow_the_export(history: Path, cli: Cli) -> None:
    result = cli("trace", "export", "--queue", "training", "--since", "1h", "--out", "t.csv")
    assert result.exit_code == 0, result.stderr
    assert Path("t.csv").read_text().splitlines()[1:] == [
        "0.0,training/nlp,ml.p5.48xlarge,2,600,5,q1"
    ]
    missing = cli("trace", "export", "--queue", "nope", "--out", "t.csv")
    assert missing.exit_code == 1
    assert "error[not-found]: no job queue 'nope'" in missing.stderr
    bad = cli("trace", "export", "--since", "soon", "--out", "t.csv")
    assert bad.exit_code == 64


def test_replaying_the_export_reproduces_the_emulators_starts_and_waits(
    history: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("trace", "export", "--out", "trace.csv").exit_code == 0
    starts: dict[str, tuple[float, float]] = {}

    class Recording(simulator.MeteredEngine):
        def _started(self, job: Job, borrowed: int) -> None:
            super()._started(job, borrowed)
            if not job.preemptions:  # the first start
                starts[job.job_id] = (self.now, self.now - job.submitted_at)

    monkeypatch.setattr(simulator, "MeteredEngine", Recording)
    result = cli("simulate", str(history), "--trace", "trace.csv", "-o", "json")
    assert result.exit_code == 0, result.stderr
    emulated = emulator_starts()
    assert sorted(emulated) == ["a1", "a2", "a3", "v1", "v2"]  # q1 is still queued
    in_order = sorted(emulated, key=lambda n: (emulated[n][0], n))
    assert in_order == ["a1", "a2", "v1", "v2", "a3"]
    assert sorted(emulated, key=lambda n: (starts[n][0], n)) == in_order
    for name, (_, wait) in emulated.items():
        assert abs(starts[name][1] - wait) <= STARTUP, name
    # a3 was submitted 1 ms after v2 (back-to-back submissions keep their order), which the
    # trace's submit times, to a tenth of a second, do not carry: both sides agree to 2 ms
    # under either reading of the time (the strict one has whole seconds in Date)
    assert emulated["a3"][1] == pytest.approx(6000.0, abs=0.002)
    assert starts["a3"][1] == pytest.approx(6000.0, abs=0.002)
    document = json.loads(result.stdout)
    nlp = next(s for s in document["run"]["shares"] if s["share"] == "nlp")
    assert nlp["preemptions"]["count"] == 1  # a2 is preempted again by v1's reclaim
