"""The disruption guard through the CLI: apply refuses to disturb jobs that hold instances.

Each case changes a stack on the embedded emulator while jobs run, is refused with
``disruption-not-allowed`` (the jobs named, nothing changed), and goes through with the flag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from tests.cli.jobs_support import advance_clock, submit_service_job
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

STATE = Path(".quotactl/emulator.db")
P5 = "ml.p5.48xlarge"
STACK = """\
platform: {name: guard, region: us-east-1}
environments:
  - name: pool
    capacity: {ml.p5.48xlarge: 8}
  - name: spare
    capacity: {ml.p5.48xlarge: 2}
queues:
  - name: training
    environment: pool
  - name: scratch
    environment: spare
teams:
  - name: nlp
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend_and_borrow
  - name: research
    shares:
      - queue: training
        capacity: {ml.p5.48xlarge: 4}
        sharing: lend
      - queue: scratch
        capacity: {ml.p5.48xlarge: 2}
        sharing: reserve
"""
WITHOUT_SCRATCH = (
    STACK.replace("  - name: scratch\n    environment: spare\n", "")
    .replace("      - queue: scratch\n        capacity: {ml.p5.48xlarge: 2}\n", "")
    .replace("        sharing: reserve\n", "")
    .replace("  - name: spare\n    capacity: {ml.p5.48xlarge: 2}\n", "")
)


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    """An applied stack with running jobs: nlp 3 + 1 instances, research 1, scratch 1."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "stack.yaml"
    config.write_text(STACK)
    assert cli("apply", str(config), "--auto-approve").exit_code == 0
    submit("bert-large", 3)
    advance(60)  # bert-small starts later, so it is the first to go when nlp shrinks by one
    submit("bert-small", 1)
    submit("survey", 1, share="research")
    submit("sweep", 1, share="research", queue="scratch")
    advance(60)
    return config


def batch() -> Any:
    return client(Target("local", STATE, timing=TEST_TIMING))


def submit(name: str, instances: int, share: str = "nlp", queue: str = "training") -> None:
    submit_service_job(STATE, name, instances, share, queue=queue)


def advance(seconds: float) -> None:
    advance_clock(STATE, seconds)


def running() -> dict[str, str]:
    """Every job by name, with its status."""
    found = {}
    for queue in ("training", "scratch"):
        listed = batch().list_service_jobs(
            jobQueue=queue, filters=[{"name": "AFTER_CREATED_AT", "values": ["0"]}]
        )
        found.update({j["jobName"]: j["status"] for j in listed["jobSummaryList"]})
    return found


def live() -> dict[str, object]:
    """What the account holds: each share's limit and state, and the queues."""
    out: dict[str, object] = {}
    queues = [q["jobQueueName"] for q in batch().describe_job_queues()["jobQueues"]]
    out["queues"] = sorted(queues)
    for queue in queues:
        for share in batch().list_quota_shares(jobQueue=queue)["quotaShares"]:
            limits = {c["capacityUnit"]: c["maxCapacity"] for c in share["capacityLimits"]}
            out[f"{queue}/{share['quotaShareName']}"] = (limits, share["state"])
    return out


CASES: dict[str, tuple[Callable[[str], str], tuple[str, ...], list[str]]] = {
    "a busy share's limit lowered": (
        lambda text: text.replace(
            "capacity: {ml.p5.48xlarge: 4}\n        sharing: lend_and_borrow",
            "capacity: {ml.p5.48xlarge: 3}\n        sharing: lend_and_borrow",
        ),
        (),
        ["bert-small"],  # the most recently started jobs covering the excess of 1
    ),
    "a share with running jobs disabled": (
        lambda text: text.replace(
            "        sharing: lend\n", "        sharing: lend\n        enabled: false\n"
        ),
        (),
        ["survey"],
    ),
    "a queue with running jobs deleted": (
        lambda _: WITHOUT_SCRATCH,
        ("--allow-delete",),
        ["sweep"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_disrupting_change_is_refused_then_allowed_with_the_flag(
    stack: Path, cli: Cli, case: str
) -> None:
    edit, flags, victims = CASES[case]
    stack.write_text(edit(stack.read_text()))
    before = live()
    refused = cli("apply", str(stack), "--auto-approve", *flags)
    assert refused.exit_code == 1
    assert "error[disruption-not-allowed]" in refused.stderr
    for name in victims:
        assert f"{name} (" in refused.stderr
    assert f"{len(victims)} active job{'s' if len(victims) != 1 else ''}" in refused.stderr
    assert live() == before
    assert set(running().values()) == {"RUNNING"}
    counted = cli("apply", str(stack), "--auto-approve", *flags, "--max-disruption", "0")
    assert counted.exit_code == 1
    assert "(more than --max-disruption 0)" in counted.stderr
    allowed = cli("apply", str(stack), "--auto-approve", *flags, "--allow-disruption")
    assert allowed.exit_code == 0, allowed.stderr
    assert live() != before
    assert cli("plan", str(stack), "--detailed-exitcode").exit_code == 0


def test_max_disruption_lets_through_a_plan_that_disrupts_no_more(stack: Path, cli: Cli) -> None:
    edit = CASES["a busy share's limit lowered"][0]
    stack.write_text(edit(stack.read_text()))
    result = cli("apply", str(stack), "--auto-approve", "--max-disruption", "1")
    assert result.exit_code == 0, result.stderr


def test_plan_output_counts_what_the_guard_will_refuse(stack: Path, cli: Cli) -> None:
    stack.write_text(
        stack.read_text().replace("sharing: lend\n", "sharing: lend\n        enabled: false\n")
    )
    document = json.loads(cli("plan", str(stack), "-o", "json").stdout)
    assert document["disruption"]["jobs"] == 1
    assert document["disruption"]["disabled"] == 1
    markdown = cli("plan", str(stack), "-o", "markdown").stdout
    assert "> [!CAUTION]" in markdown
    assert "apply refuses without --allow-disruption or --max-disruption 1" in markdown


def test_a_saved_plan_is_judged_on_the_jobs_running_at_apply_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "stack.yaml"
    config.write_text(STACK)
    assert cli("apply", str(config), "--auto-approve").exit_code == 0
    config.write_text(CASES["a busy share's limit lowered"][0](STACK))
    saved = cli("plan", str(config), "--out", "plan.json", "-o", "json")
    assert json.loads(saved.stdout)["disruption"]["jobs"] == 0  # nlp is idle when planned
    submit("bert-large", 3)
    advance(60)
    submit("bert-small", 1)
    advance(60)  # now nlp holds 4 instances, above the planned limit of 3
    before = live()
    refused = cli("apply", "--plan", "plan.json", "--auto-approve")
    assert refused.exit_code == 1
    assert "error[disruption-not-allowed]" in refused.stderr
    assert "bert-small (" in refused.stderr
    assert live() == before
    allowed = cli("apply", "--plan", "plan.json", "--auto-approve", "--allow-disruption")
    assert allowed.exit_code == 0, allowed.stderr
    assert live()["training/nlp"] == ({P5: 3}, "ENABLED")


def test_lowering_an_environment_below_its_use_says_what_happens_and_stops_nothing(
    stack: Path, cli: Cli
) -> None:
    squeezed = stack.read_text().replace(
        "  - name: pool\n    capacity: {ml.p5.48xlarge: 8}",
        "  - name: pool\n    capacity: {ml.p5.48xlarge: 4}",
    )
    stack.write_text(squeezed)
    shown = cli("plan", str(stack), "--out", "plan.json")
    assert shown.exit_code == 0, shown.stderr
    assert (
        "5 ml.p5.48xlarge are in use, above the new capacity 4: AWS terminates nothing; new "
        "jobs of that type wait until usage falls below it"
    ) in shown.stdout
    assert "Disruption:" not in shown.stdout  # nothing is stopped or exposed: no guard
    before = running()
    applied = cli("apply", "--plan", "plan.json", "--auto-approve")
    assert applied.exit_code == 0, applied.stderr  # the saved plan verifies, with its impact
    assert running() == before
