"""The emulator driven by `local advance --govern` and `simulate` take the same policy actions
at the same times, and start every job at the same time (generated scenarios).

A scenario: a pool of 8 p5s shared by research and nlp, a schedule window on research on the
Monday of the start (a capacity, a sharing or a disable), perhaps aging on the queue, perhaps a
daily budget on research (soft, hard, or hard on what it borrows) small enough to cross within
the run, and a small trace of jobs at several priorities (more than fits, so some starve, age,
and are preempted when a lender reclaims). The emulator is a fresh account from `local reset
--at` Monday 00:00 UTC with the config applied, the jobs submitted through boto3 at their
times, the clock moved by `api.advance(..., govern=..., log=...)`: `quotactl govern`'s own
cycle (`api.governor.govern_cycle`) at every 5-minute tick, its actions read back from its log.
`simulate` replays the trace from the same instant with the same cadence. A job sent while the
window disables its share is refused by the emulator (ClientException) and counted as refused
by `simulate`.

The jobs arrive 30 s past a minute: the emulator's clock moves 1 ms with each submission, so
a job sent on a cadence tick would cross each aging step 1 ms after that tick on the
emulator and at it in the replay (one cycle apart); off the grid, both see a crossing at the
same next tick.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings, strategies as st

import quotactl
from quotactl import api
from quotactl.aws.session import Target, client, make_session
from quotactl.core.engine import TIMING
from quotactl.core.simulate.governed import Governance
from quotactl.core.simulate.queues import queue_models
from quotactl.core.simulate.schedule import governed_attempts
from quotactl.emulator import Emulator
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.simulate.trace import TraceRow

MONDAY = datetime(2026, 12, 7, tzinfo=UTC)
P5 = "ml.p5.48xlarge"
EVERY = 300.0
Seen = list[tuple[float, str, str, dict[str, Any]]]


CONFIG = """
platform: {{name: agree, region: us-east-1}}
environments:
  - name: pool
    capacity: {{ml.p5.48xlarge: 8}}
queues:
  - name: training
    environment: pool
{aging}
teams:
  - name: research
{budget}
    shares:
      - queue: training
        capacity: {{ml.p5.48xlarge: {research}}}
        sharing: {sharing}
        schedule:
          - name: w
            when: {{days: [mon], hours: "{begin:02d}:00-{end:02d}:00"}}
{override}
  - name: nlp
    shares:
      - queue: training
        capacity: {{ml.p5.48xlarge: {nlp}}}
        sharing: lend
"""
AGING = {
    "none": "",
    "slow": "    aging: {after: 30m, every: 15m, step: 5, max: 20}",
    "fast": "    aging: {after: 10m, every: 5m, step: 2, max: 30}",
    "preempt": "    aging: {after: 20m, every: 10m, step: 10, max: 40, preempt: true}",
}
BUDGETS = {
    "none": "",
    "soft": "    budget: {{every: day, instance_hours: {{ml.p5.48xlarge: {hours}}}, over: soft}}",
    "hard": "    budget: {{every: day, instance_hours: {{ml.p5.48xlarge: {hours}}}, over: hard}}",
    "borrowed": (
        "    budget: {{every: day, instance_hours: {{ml.p5.48xlarge: {hours}}},"
        " counts: borrowed, over: hard}}"
    ),
}
OVERRIDES = {
    "bigger": "            capacity: {ml.p5.48xlarge: 6}",
    "smaller": "            capacity: {ml.p5.48xlarge: 1}",
    "closed": "            enabled: false",
    "borrows": "            sharing: lend_and_borrow",
}

scenario_st = st.fixed_dictionaries(
    {
        "research": st.integers(1, 4),
        "sharing": st.sampled_from(["lend", "reserve", "lend_and_borrow"]),
        "begin": st.integers(1, 3),
        "length": st.integers(1, 2),
        "override": st.sampled_from(sorted(OVERRIDES)),
        "aging": st.sampled_from(sorted(AGING)),
        "budget": st.sampled_from(sorted(BUDGETS)),
        "hours": st.integers(1, 6),  # the budget's p5-hours a day
        "jobs": st.lists(
            st.tuples(
                st.integers(0, 300),  # minute of submission
                st.sampled_from(["research", "nlp"]),
                st.integers(1, 3),
                st.integers(10, 120),  # minutes of running
                st.integers(0, 20),  # priority
            ),
            min_size=1,
            max_size=10,
            unique_by=lambda job: job[0],  # (equal times: see test_simulate_agreement.py)
        ),
    }
)


def _config(tmp: Path, drawn: dict[str, Any]) -> DesiredState:
    path = tmp / "agree.yaml"
    path.write_text(
        CONFIG.format(
            research=drawn["research"],
            nlp=8 - drawn["research"],
            sharing=drawn["sharing"],
            begin=drawn["begin"],
            end=drawn["begin"] + drawn["length"],
            override=OVERRIDES[drawn["override"]],
            aging=AGING[drawn["aging"]],
            budget=BUDGETS[drawn["budget"]].format(hours=drawn["hours"]),
        )
    )
    return api.load([path]).desired


def _plain(after: Any) -> dict[str, Any]:
    """An action's ``after`` as the governor's log writes it (JSON)."""
    return json.loads(json.dumps(dict(after), default=str))  # type: ignore[no-any-return]


def _rows(drawn: dict[str, Any]) -> list[TraceRow]:
    """The trace; a job never asks more than its share's own capacity (one that did would wait
    for next Monday's window, past the emulator's run)."""
    jobs = sorted(drawn["jobs"], key=lambda j: j[0])
    own = {"research": drawn["research"], "nlp": 8 - drawn["research"]}
    return [
        (
            minute * 60.0 + 30.0,
            share,
            P5,
            min(count, own[share]),
            run * 60.0,
            priority,
            f"j{i}",
            i + 2,
        )
        for i, (minute, share, count, run, priority) in enumerate(jobs)
    ]


def _emulated(
    state: Path, desired: DesiredState, rows: list[TraceRow], end: float
) -> tuple[Seen, dict[str, float | None], int]:
    api.reset(state, at=MONDAY)
    with quotactl.connect("local", state=state, timing=TIMING) as account:
        result = api.apply(account, desired, show=lambda plan: None, approve=lambda plan: None)
        assert result is not None
        assert result.ok
    start = MONDAY.timestamp()
    log = state.parent / "govern.jsonl"
    emulator = Emulator(state, timing=TIMING)
    target = Target("local", state, timing=TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))
    ids: dict[str, str] = {}
    refused = 0
    now = 0.0
    paths = [state.parent / "agree.yaml"]
    try:
        for submit_time, share, itype, count, duration, priority, name, _ in rows:
            if submit_time > now:
                api.advance(state, submit_time - now, timing=TIMING, govern=paths, log=log)
                now = submit_time
            try:
                out = batch.submit_service_job(
                    jobName=name,
                    jobQueue="training",
                    serviceJobType="SAGEMAKER_TRAINING",
                    serviceRequestPayload=payload(itype, count, max_runtime=86400),
                    quotaShareName=share,
                    schedulingPriority=priority,
                    tags={"quotactl:duration": str(int(duration))},
                )
            except ClientError:
                refused += 1
                continue
            ids[name] = out["jobId"]
        api.advance(state, end - now, timing=TIMING, govern=paths, log=log)
        names = {f"job.{job_id}": f"job.{name}" for name, job_id in ids.items()}
        seen: Seen = []
        for line in log.read_text().splitlines() if log.exists() else []:
            record = json.loads(line)
            assert record["result"] in ("applied", "blocked"), record
            at = datetime.fromisoformat(record["at"].replace("Z", "+00:00")).timestamp()
            address = names.get(record["address"], record["address"])
            seen.append((at - start, record["policy"], address, record["after"]))
        starts: dict[str, float | None] = {}
        for name, job_id in ids.items():
            attempts = batch.describe_service_job(jobId=job_id).get("attempts", [])
            started = attempts[0].get("startedAt") if attempts else None
            starts[name] = None if started is None else round(int(started) / 1000 - start, 3)
        return seen, starts, refused
    finally:
        batch.close()
        emulator.close()


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(drawn=scenario_st)
def test_emulator_and_simulate_take_the_same_actions_and_starts(
    tmp_path_factory: Any, drawn: dict[str, Any]
) -> None:
    tmp = tmp_path_factory.mktemp("agree")
    desired = _config(tmp, drawn)
    rows = _rows(drawn)
    runs, totals = governed_attempts(
        tuple(queue_models(desired)),
        iter(rows),
        "trace",
        TIMING,
        Governance(desired, MONDAY, EVERY),
    )
    simulated = [
        (t.at, t.action.policy, t.action.address, _plain(t.action.after))
        for t in totals.taken or ()
    ]
    window_end = (drawn["begin"] + drawn["length"]) * 3600.0
    horizon = max(window_end, rows[-1][0]) + sum(row[4] for row in rows) + 1200.0
    seen, starts, refused = _emulated(tmp / "s.db", desired, rows, horizon)
    emulated = [(at, p, a, dict(after)) for at, p, a, after in seen]
    # the simulator stops ticking at the first tick with nothing left to happen (every job
    # done); up to then the two agree
    ended = max([b or 0.0 for runs_ in runs.values() for _, b in runs_] + [rows[-1][0]])
    stop = -(-ended // EVERY) * EVERY
    sent = [row[6] for row in rows if row[6] in starts]  # not refused (a disabled share)
    if any(not runs.get(name) or runs[name][0][0] is None for name in sent) or ended > horizon:
        stop = horizon - EVERY  # one waits past the emulator's run: up to its last tick
    assert [e for e in emulated if e[0] <= stop] == [e for e in simulated if e[0] <= stop]
    assert refused == sum((totals.refused or {}).values())
    simulated_starts = {
        name: (None if not attempts or attempts[0][0] is None else round(attempts[0][0], 3))
        for name, attempts in runs.items()
    }
    assert set(simulated_starts) <= set(starts)
    for name, started in starts.items():
        expected = simulated_starts.get(name)  # absent: it never started
        if expected is not None and expected >= horizon:  # after the emulator's run ended
            expected = None
        # the emulator's clock moves 1 ms with each submission
        assert (started is None) == (expected is None), name
        assert started is None or abs(started - expected) < 0.05, name  # type: ignore[operator]
