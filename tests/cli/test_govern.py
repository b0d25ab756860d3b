"""``quotactl govern`` end to end on the emulator, through the CLI and stock boto3 clients,
from fixed start instants: a window applied at its boundary and restored after, soft and hard
budgets crossed and reset, aging raising a starved job until it starts, the log, a second
cycle doing nothing, a merge-time apply leaving a budget in force, exit codes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from tests.cli.jobs_support import advance_clock, all_jobs, batch_client, submit_service_job

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

P5 = "ml.p5.48xlarge"
CONFIG = f"""
platform: {{name: gov, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 8}}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    budget:
      every: day
      instance_hours: {{{P5}: 2}}
      over: OVER
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend_and_borrow
        borrow_limit: unlimited
  - name: research
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend
        schedule:
          - name: weekend
            when: {{days: [sat, sun]}}
            capacity: {{{P5}: 6}}
"""
AGING = f"""
platform: {{name: aged, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 4}}
queues:
  - name: training
    environment: pool
    aging: {{after: 1h, every: 1h, step: 20, max: 60}}
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: reserve
"""
FRIDAY_LATE = datetime(2030, 1, 4, 23, 0, tzinfo=UTC)
THURSDAY = datetime(2030, 1, 3, 10, 0, tzinfo=UTC)


class Account:
    """One emulated account whose clock starts at a fixed instant, the config applied."""

    def __init__(self, cli: Cli, tmp: Path, config: str, start: datetime) -> None:
        from quotactl.emulator import Emulator
        from tests.conftest import TEST_TIMING

        self.cli, self.tmp, self.state = cli, tmp, tmp / "state.db"
        self.config = tmp / "config.yaml"
        self.config.write_text(config)
        self.log = tmp / "govern.jsonl"
        with Emulator(self.state, timing=TEST_TIMING) as emulator:
            emulator.advance(start.timestamp() - emulator.now())
        self.ok("apply", str(self.config), "--auto-approve")

    def run(self, *args: str) -> CliResult:
        return self.cli("-q", "--state", str(self.state), *args)

    def ok(self, *args: str) -> CliResult:
        result = self.run(*args)
        assert result.exit_code == 0, f"{args}: {result.stderr}"
        return result

    def govern(self, *args: str) -> CliResult:
        return self.run("govern", str(self.config), "--log", str(self.log), *args)

    def advance(self, seconds: float) -> None:
        advance_clock(self.state, seconds)

    def share(self, name: str) -> dict[str, Any]:
        client = batch_client(self.state)
        arn = next(
            s["quotaShareArn"]
            for s in client.list_quota_shares(jobQueue="training")["quotaShares"]
            if s["quotaShareName"] == name
        )
        found: dict[str, Any] = client.describe_quota_share(quotaShareArn=arn)
        return found

    def records(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def capacity(share: dict[str, Any]) -> int:
    return int(next(c["maxCapacity"] for c in share["capacityLimits"] if c["capacityUnit"] == P5))


def test_a_window_is_applied_at_its_boundary_and_restored_after(tmp_path: Path, cli: Cli) -> None:
    account = Account(cli, tmp_path, CONFIG.replace("OVER", "soft"), FRIDAY_LATE)
    before = account.govern("--detailed-exitcode")
    assert before.exit_code == 0, before.stderr
    assert "No actions" in before.stdout
    assert capacity(account.share("research")) == 4

    account.advance(3600)  # Saturday 00:00 UTC: the weekend window begins
    applied = account.govern("--detailed-exitcode")
    assert applied.exit_code == 2, applied.stderr
    assert (
        "  ~ share.training/research  [schedule:weekend] until 2030-01-07T00:00Z\n"
        "      capacity: {ml.p5.48xlarge: 4} → {ml.p5.48xlarge: 6}\n"
        "      why: window weekend in force\n"
        "      applied\n"
    ) in applied.stdout
    research = account.share("research")
    assert capacity(research) == 6
    assert research["tags"]["quotactl:governed"] == "schedule:weekend until=2030-01-07T00:00:00Z"

    again = account.govern("--detailed-exitcode")  # a second cycle does nothing
    assert again.exit_code == 0, again.stderr
    assert "No actions" in again.stdout

    account.advance(48 * 3600)  # Monday 00:00: the window ends
    restored = account.govern("--detailed-exitcode")
    assert restored.exit_code == 2, restored.stderr
    research = account.share("research")
    assert capacity(research) == 4
    assert "quotactl:governed" not in research["tags"]

    records = account.records()  # each action once, in order
    assert [(r["at"], r["policy"], r["address"], r["result"]) for r in records] == [
        ("2030-01-05T00:00:00Z", "schedule:weekend", "share.training/research", "applied"),
        ("2030-01-07T00:00:00Z", "schedule:weekend", "share.training/research", "applied"),
    ]
    assert records[0]["before"] == {"capacity": {P5: 4}}
    assert records[0]["after"] == {"capacity": {P5: 6}}
    assert records[0]["reason"] == "window weekend in force"
    assert records[1]["after"] == {"capacity": {P5: 4}}


@pytest.mark.parametrize("over", ["soft", "hard"])
def test_a_budget_crossed_stops_borrowing_hard_disables_and_the_period_resets_it(
    tmp_path: Path, cli: Cli, over: str
) -> None:
    account = Account(cli, tmp_path, CONFIG.replace("OVER", over), THURSDAY)
    submit_service_job(account.state, "big", 2, "nlp", max_runtime=7200)
    account.advance(1800)
    assert account.govern("--detailed-exitcode").exit_code == 0  # 1 of 2 h used
    assert account.share("nlp")["tags"]["quotactl:budget"] == (
        f"{over} resets=2030-01-04T00:00:00Z {P5}=1/2"
    )

    account.advance(1800)  # 2 instances for an hour: 2 of 2 h
    crossed = account.govern("--detailed-exitcode")
    assert crossed.exit_code == 2, crossed.stderr
    assert f"nlp over its {over} budget on {P5}" in crossed.stdout
    nlp = account.share("nlp")
    assert nlp["resourceSharingConfiguration"]["strategy"] == "LEND"
    assert nlp["state"] == ("DISABLED" if over == "hard" else "ENABLED")
    assert nlp["tags"]["quotactl:governed"] == "budget until=2030-01-04T00:00:00Z"
    if over == "hard":  # AWS refuses every client: a stock boto3 submit too
        with pytest.raises(ClientError, match="DISABLED"):
            submit_service_job(account.state, "more", 1, "nlp")
    else:
        submit_service_job(account.state, "more", 1, "nlp")

    account.advance(14 * 3600)  # past midnight UTC: the next day's period
    reset = account.govern("--detailed-exitcode")
    assert reset.exit_code == 2, reset.stderr
    nlp = account.share("nlp")
    assert nlp["resourceSharingConfiguration"]["strategy"] == "LEND_AND_BORROW"
    assert nlp["state"] == "ENABLED"
    assert "quotactl:governed" not in nlp["tags"]
    assert [r["policy"] for r in account.records()] == ["budget", "budget"]


def test_a_merge_time_apply_leaves_a_budget_in_force(tmp_path: Path, cli: Cli) -> None:
    account = Account(cli, tmp_path, CONFIG.replace("OVER", "hard"), THURSDAY)
    submit_service_job(account.state, "big", 2, "nlp", max_runtime=7200)
    account.advance(3600)
    assert account.govern().exit_code == 0
    assert account.share("nlp")["state"] == "DISABLED"

    plan = account.run("plan", str(account.config), "--detailed-exitcode")
    assert plan.exit_code == 0, plan.stdout + plan.stderr
    assert "quotactl:governed" not in plan.stdout
    assert "quotactl:budget" not in plan.stdout
    account.ok("apply", str(account.config), "--auto-approve")
    nlp = account.share("nlp")
    assert nlp["state"] == "DISABLED"
    assert nlp["resourceSharingConfiguration"]["strategy"] == "LEND"
    assert {"quotactl:governed", "quotactl:budget"} <= set(nlp["tags"])
    exported = account.ok("export").stdout
    assert "quotactl:governed" not in exported
    assert "quotactl:budget" not in exported


def test_aging_raises_a_starved_job_until_it_starts(tmp_path: Path, cli: Cli) -> None:
    account = Account(cli, tmp_path, AGING, THURSDAY)
    submit_service_job(account.state, "running", 4, "nlp", max_runtime=12_600, priority=50)
    submit_service_job(account.state, "starved", 4, "nlp", priority=0)
    # "starved" was created 1 ms after 10:00 (back-to-back submissions keep their order), and
    # AWS's Date header, the governor's clock, has whole seconds: cycles a second past the
    # hour see whole hours of waiting under either reading of the time
    account.advance(1)
    for _ in range(2):  # cycles at 11:00:01 and 12:00:01
        account.advance(3600)
        assert account.govern().exit_code == 0
    account.advance(1800)  # a higher-priority job arrives at 12:30
    submit_service_job(account.state, "favoured", 4, "nlp", priority=30)
    account.advance(1800)
    assert account.govern().exit_code == 0  # 13:00:01
    raised = [r for r in account.records() if r["policy"] == "aging"]
    assert [(r["at"], r["address"][:4], r["before"], r["after"]) for r in raised] == [
        ("2030-01-03T12:00:01Z", "job.", {"priority": 0}, {"priority": 20}),
        ("2030-01-03T13:00:01Z", "job.", {"priority": 20}, {"priority": 40}),
    ]
    account.advance(1799)  # the running job ends at 13:30
    jobs = {j["jobName"]: j["status"] for j in all_jobs(batch_client(account.state), "training")}
    assert jobs["starved"] == "RUNNING"
    assert jobs["favoured"] == "RUNNABLE"
    client = batch_client(account.state)
    starved = next(j for j in all_jobs(client, "training") if j["jobName"] == "starved")
    described = client.describe_service_job(jobId=starved["jobId"])
    assert described["schedulingPriority"] == 40
    assert described["tags"]["quotactl:base-priority"] == "0"


def test_a_dry_run_changes_nothing_and_a_held_lock_skips_the_cycle(
    tmp_path: Path, cli: Cli
) -> None:
    account = Account(cli, tmp_path, CONFIG.replace("OVER", "soft"), FRIDAY_LATE)
    account.advance(3600)
    dry = account.govern("--dry-run", "--detailed-exitcode")
    assert dry.exit_code == 2, dry.stderr
    assert "dry run: nothing is changed" in dry.stdout
    assert "would apply" in dry.stdout
    assert capacity(account.share("research")) == 4
    assert account.records() == []

    from quotactl import api
    from tests.conftest import TEST_TIMING

    with (
        api.connect("local", state=account.state, timing=TEST_TIMING) as held,
        api.lock_request(held, "apply").hold("gov"),
    ):
        skipped = account.govern("--detailed-exitcode")
    assert skipped.exit_code == 0, skipped.stderr
    assert "skipped: stack gov is locked" in skipped.stdout
    assert capacity(account.share("research")) == 4
    document = json.loads(account.govern("-o", "json").stdout)
    assert [a["address"] for a in document["actions"]] == ["share.training/research"]
    assert document["actions"][0]["result"] == "applied"
    assert capacity(account.share("research")) == 6


def test_a_dead_governors_expired_lock_is_taken_over_an_applys_is_not(
    tmp_path: Path, cli: Cli
) -> None:
    from quotactl import api
    from quotactl.core.apply.lock import LockInfo
    from tests.conftest import TEST_TIMING

    account = Account(cli, tmp_path, CONFIG.replace("OVER", "soft"), FRIDAY_LATE)
    account.advance(3600)
    with api.connect("local", state=account.state, timing=TEST_TIMING) as other:
        store = other.lock_store()
        expired = LockInfo("gov", "dead", "ci@runner pid 7", "apply", 1000.0, 1300.0)
        assert store.create("gov", expired.tags())
        refused = account.govern()
        assert "skipped: stack gov is locked by ci@runner pid 7 (apply" in refused.stdout
        assert capacity(account.share("research")) == 4
        store.delete("gov")
        assert store.create(
            "gov", LockInfo("gov", "dead", "g pid 8", "govern", 1000.0, 1300.0).tags()
        )
    taken = account.govern("--detailed-exitcode")
    assert taken.exit_code == 2, taken.stdout + taken.stderr
    assert capacity(account.share("research")) == 6


NIGHT_LOWERING = f"""
platform: {{name: low, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 4}}
queues:
  - name: training
    environment: pool
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend
        schedule:
          - name: weekend
            when: {{days: [sat, sun]}}
            capacity: {{{P5}: 1}}
"""


def test_a_disrupting_lowering_is_held_back_exit_4_then_finished_as_jobs_end(
    tmp_path: Path, cli: Cli
) -> None:
    account = Account(cli, tmp_path, NIGHT_LOWERING, FRIDAY_LATE)
    submit_service_job(account.state, "long", 3, "nlp", max_runtime=7200)
    account.advance(3600)  # Saturday: the window wants 1, the job holds 3
    held = account.govern("--detailed-exitcode")
    assert held.exit_code == 4, held.stdout + held.stderr
    assert (
        "      capacity: {ml.p5.48xlarge: 4} → {ml.p5.48xlarge: 3} "
        "(wanted {ml.p5.48xlarge: 1}: held back, it would disrupt)\n"
    ) in held.stdout
    assert "      blocked\n" in held.stdout
    assert capacity(account.share("nlp")) == 3
    assert account.records()[-1]["result"] == "blocked"
    assert account.records()[-1]["target"] == {"capacity": {P5: 1}}

    account.advance(3600)  # the job ends: the rest of the lowering goes through
    done = account.govern("--detailed-exitcode")
    assert done.exit_code == 2, done.stdout + done.stderr
    assert capacity(account.share("nlp")) == 1


def test_history_ledgers_count_towards_a_budget(tmp_path: Path, cli: Cli) -> None:
    """Jobs the account no longer lists count from ``--history`` ledgers."""
    from quotactl.core.history.ledger import Attempt, write_ledger
    from quotactl.core.states import AttemptOutcome

    account = Account(cli, tmp_path, CONFIG.replace("OVER", "soft"), THURSDAY)
    ledger = tmp_path / "ledger.csv"
    early = datetime(2030, 1, 3, 7, 0, tzinfo=UTC)
    done = Attempt(
        "gone-1", 1, "old", "training", "nlp", "nlp", P5, 1, 0,
        early, early, datetime(2030, 1, 3, 9, 30, tzinfo=UTC), AttemptOutcome.SUCCEEDED,
    )  # fmt: skip
    write_ledger(ledger, [done])
    assert account.govern("--detailed-exitcode").exit_code == 0  # the account alone: 0 h
    counted = account.govern("--history", str(ledger), "--detailed-exitcode")
    assert counted.exit_code == 2, counted.stdout + counted.stderr
    assert f"nlp over its soft budget on {P5} (2.5 of 2 h)" in counted.stdout
    assert account.share("nlp")["resourceSharingConfiguration"]["strategy"] == "LEND"


def described(result: CliResult) -> int:
    """How many waiting jobs a cycle described: ``--debug``'s DescribeServiceJob count, less
    the one of the running job (read for the instances it holds)."""
    line = next(line for line in result.stderr.splitlines() if "API calls" in line)
    found = re.search(r"DescribeServiceJob (\d+)", line)
    return (int(found.group(1)) if found else 0) - 1


def governor_tag(state: Path) -> str:
    queue = batch_client(state).describe_job_queues(jobQueues=["training"])["jobQueues"][0]
    return str((queue.get("tags") or {}).get("quotactl:governor"))


def test_once_describes_only_the_jobs_whose_boost_grew_since_the_last_cycle(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ``--once`` is a fresh process: the previous cycle's time is read from the queue's
    ``quotactl:governor`` tag, so a cycle between step boundaries describes no waiting job."""
    account = Account(cli, tmp_path, AGING, THURSDAY)
    submit_service_job(account.state, "running", 4, "nlp", max_runtime=36_000, priority=50)
    for index in range(5):
        submit_service_job(account.state, f"w{index}", 1, "nlp", priority=0)
    # the jobs were created 1 to 5 ms after 10:00 and AWS's Date header has whole seconds:
    # cycles a second past the hour see whole hours of waiting under either reading
    account.advance(1)
    account.advance(3600)  # 11:00:01, the first cycle ever: every job waiting past `after`
    first = account.run("--debug", "govern", str(account.config), "--log", str(account.log))
    assert first.exit_code == 0, first.stderr
    assert described(first) == 5
    assert governor_tag(account.state).startswith("last=2030-01-03T11:00:01.")

    account.advance(1800)  # 11:30: no boundary crossed since 11:00
    between = account.run("--debug", "govern", str(account.config))
    assert between.exit_code == 0, between.stderr
    assert described(between) == 0
    assert "No actions" in between.stdout

    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", "refuse=UpdateServiceJob")
    account.advance(1800)  # 12:00: every job's boost grows, but AWS refuses the raises
    refused = account.govern()
    assert refused.exit_code == 1
    assert governor_tag(account.state).startswith("last=2030-01-03T11:30:01.")  # not moved on
    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")

    account.advance(7200)  # 14:00: three boundaries since the last recorded cycle
    raised = account.run("--debug", "govern", str(account.config), "--log", str(account.log))
    assert raised.exit_code == 0, raised.stderr
    assert described(raised) == 5
    applied = [r for r in account.records() if r["result"] == "applied"]
    assert [(r["before"], r["after"]) for r in applied] == [
        ({"priority": 0}, {"priority": 60})  # one update to the current target
    ] * 5
    assert governor_tag(account.state).startswith("last=2030-01-03T14:00:01.")

    account.advance(3600)  # 15:00: a boundary crossed, but the boost is at its max
    capped = account.run("--debug", "govern", str(account.config))
    assert capped.exit_code == 0, capped.stderr
    assert described(capped) == 0, capped.stderr
    plan = account.run("plan", str(account.config), "--detailed-exitcode")
    assert plan.exit_code == 0, plan.stdout + plan.stderr  # the tag is the governor's


REFUSED = f"""
platform: {{name: refused, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 8}}
queues:
  - name: training
    environment: pool
    aging: {{after: 1h, every: 1h, step: 20, max: 60}}
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: reserve
  - name: research
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend
        schedule:
          - name: weekend
            when: {{days: [sat, sun]}}
            capacity: {{{P5}: 2}}
"""


def test_a_change_aws_refuses_exits_1_the_others_apply_and_a_rerun_converges(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = Account(cli, tmp_path, REFUSED, FRIDAY_LATE)
    submit_service_job(account.state, "running", 4, "nlp", max_runtime=36_000, priority=50)
    submit_service_job(account.state, "waiting", 4, "nlp", priority=0)
    # Saturday 01:00:01: the window began, the waiting job (created 1 ms after 23:00) waited
    # two whole hours even on AWS's Date header, which has whole seconds
    account.advance(7201)
    monkeypatch.setenv("QUOTACTL_EMULATOR_FAULTS", "refuse=UpdateQuotaShare")
    failed = account.govern("--detailed-exitcode")
    assert failed.exit_code == 1, failed.stdout + failed.stderr
    assert "govern-failed" in failed.stderr
    assert "UpdateQuotaShare refused" in failed.stdout + failed.stderr
    records = {r["address"].partition(".")[0]: r for r in account.records()}
    assert records["share"]["result"] == "failed"
    assert "UpdateQuotaShare refused" in records["share"]["error"]
    assert records["job"]["result"] == "applied"  # the raise went through
    assert capacity(account.share("research")) == 4
    client = batch_client(account.state)
    waiting = next(j for j in all_jobs(client, "training") if j["jobName"] == "waiting")
    assert client.describe_service_job(jobId=waiting["jobId"])["schedulingPriority"] == 20

    monkeypatch.delenv("QUOTACTL_EMULATOR_FAULTS")
    rerun = account.govern("--detailed-exitcode")
    assert rerun.exit_code == 2, rerun.stdout + rerun.stderr
    assert capacity(account.share("research")) == 2
    assert account.records()[-1]["result"] == "applied"
    assert account.records()[-1]["address"] == "share.training/research"
    settled = account.govern("--detailed-exitcode")
    assert settled.exit_code == 0, settled.stdout + settled.stderr
    assert "No actions" in settled.stdout


BERLIN = f"""
platform: {{name: dst, region: us-east-1}}
environments:
  - name: pool
    capacity: {{{P5}: 8}}
queues:
  - name: training
    environment: pool
teams:
  - name: research
    shares:
      - queue: training
        capacity: {{{P5}: 4}}
        sharing: lend
        schedule:
          - name: morning
            when: {{days: [sat, mon], hours: "09:00-10:00", timezone: Europe/Berlin}}
            capacity: {{{P5}: 6}}
"""


def test_a_window_in_berlin_follows_the_daylight_saving_change(tmp_path: Path, cli: Cli) -> None:
    # Sunday 28 March 2027 Berlin moves from UTC+1 to UTC+2: the 09:00 window starts at
    # 08:00 UTC on the Saturday before and at 07:00 UTC on the Monday after
    state, config, log = tmp_path / "state.db", tmp_path / "config.yaml", tmp_path / "gov.jsonl"
    config.write_text(BERLIN)

    def ok(*args: str) -> CliResult:
        result = cli("-q", "--state", str(state), *args)
        assert result.exit_code == 0, f"{args}: {result.stderr}"
        return result

    ok("local", "reset", "--at", "2027-03-27T00:00:00Z")
    ok("apply", str(config), "--auto-approve")
    ok("local", "advance", "3d", "--govern", str(config), "--govern-every", "1h", "--log", str(log))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["at"], r["policy"], r["after"], r["result"]) for r in records] == [
        ("2027-03-27T08:00:00Z", "schedule:morning", {"capacity": {P5: 6}}, "applied"),
        ("2027-03-27T09:00:00Z", "schedule:morning", {"capacity": {P5: 4}}, "applied"),
        ("2027-03-29T07:00:00Z", "schedule:morning", {"capacity": {P5: 6}}, "applied"),
        ("2027-03-29T08:00:00Z", "schedule:morning", {"capacity": {P5: 4}}, "applied"),
    ]
    client = batch_client(state)
    share = client.list_quota_shares(jobQueue="training")["quotaShares"][0]
    described = client.describe_quota_share(quotaShareArn=share["quotaShareArn"])
    assert capacity(described) == 4
    assert "quotactl:governed" not in described["tags"]
