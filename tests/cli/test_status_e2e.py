"""`quotactl status -o json` end to end on the emulator: every figure after scripted work.

The demo platform (configs/demo: p5 8, g5 16; nlp lend_and_borrow 100 % with in-share
preemption on p5 4; research lend on p5 2 and g5 4; vision-experiments lend_and_borrow
unlimited on p5 2 and g5 8; ranking reserve on g5 4) is applied, jobs are submitted through
boto3 as the SageMaker SDK would, and the clock moves with `quotactl local advance`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

P5, G5 = "ml.p5.48xlarge", "ml.g5.12xlarge"
IDLE_JOBS = {"SUBMITTED": 0, "RUNNABLE": 0, "SCHEDULED": 0, "STARTING": 0, "RUNNING": 0}


class Account:
    """The emulated account of one test: its state file, a boto3 client, the CLI."""

    def __init__(self, state: Path, cli: Cli) -> None:
        self.state = state
        self.cli = cli
        self.batch = client(Target("local", state, timing=TEST_TIMING))
        self.ids: dict[str, str] = {}

    def submit(
        self, name: str, share: str, instance_type: str, count: int, priority: int = 1
    ) -> None:
        payload = {
            "TrainingJobName": name,
            "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
            "ResourceConfig": {
                "InstanceType": instance_type,
                "InstanceCount": count,
                "VolumeSizeInGB": 30,
            },
            "RoleArn": "arn:aws:iam::123456789012:role/SageMaker",
            "StoppingCondition": {"MaxRuntimeInSeconds": 7 * 86_400},
            "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
        }
        out = self.batch.submit_service_job(
            jobName=name,
            jobQueue="training",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=json.dumps(payload),
            quotaShareName=share,
            schedulingPriority=priority,
        )
        self.ids[name] = out["jobId"]

    def advance(self, duration: str) -> None:
        result = self.cli("--state", str(self.state), "local", "advance", duration)
        assert result.exit_code == 0, result.stderr

    def lower(self, share: str, limits: dict[str, int]) -> None:
        arn = next(
            s["quotaShareArn"]
            for s in self.batch.list_quota_shares(jobQueue="training")["quotaShares"]
            if s["quotaShareName"] == share
        )
        self.batch.update_quota_share(
            quotaShareArn=arn,
            capacityLimits=[{"capacityUnit": t, "maxCapacity": n} for t, n in limits.items()],
        )
        for _ in range(10):
            if self.batch.describe_quota_share(quotaShareArn=arn)["status"] == "VALID":
                return
        raise AssertionError(f"{share} never became VALID again")

    def reserve(self, share: str) -> None:
        """Turn ``share`` RESERVE (it stops lending), whatever it lends right now."""
        arn = next(
            s["quotaShareArn"]
            for s in self.batch.list_quota_shares(jobQueue="training")["quotaShares"]
            if s["quotaShareName"] == share
        )
        self.batch.update_quota_share(
            quotaShareArn=arn, resourceSharingConfiguration={"strategy": "RESERVE"}
        )

    def text(self) -> str:
        result = self.cli("--state", str(self.state), "-q", "status")
        assert result.exit_code == 0, result.stderr
        return result.stdout

    def status(self, *args: str) -> dict[str, Any]:
        result = self.cli("--state", str(self.state), "-q", "status", "-o", "json", *args)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        document: dict[str, Any] = json.loads(result.stdout)
        return document


def share(document: dict[str, Any], name: str) -> dict[str, Any]:
    (queue,) = document["queues"]
    found: dict[str, Any] = next(s for s in queue["shares"] if s["name"] == name)
    return found


def figures(document: dict[str, Any], name: str, instance_type: str) -> tuple[int, ...]:
    """(limit, in_use, own, borrowed, idle, lent, headroom) of one share and type."""
    row = next(c for c in share(document, name)["capacity"] if c["instance_type"] == instance_type)
    keys = ("limit", "in_use", "own", "borrowed", "idle", "lent", "headroom")
    return tuple(row[k] for k in keys)


def pairs(document: dict[str, Any]) -> list[tuple[str, str, str | None, float]]:
    (queue,) = document["queues"]
    return [
        (p["instance_type"], p["borrower"], p["lender"], p["instances"]) for p in queue["borrowing"]
    ]


def head(document: dict[str, Any], name: str) -> tuple[str, str] | None:
    found = share(document, name)["head"]
    return None if found is None else (found["name"], found["wait_code"])


@pytest.fixture
def account(tmp_path: Path, cli: Cli, repo_root: Path) -> Account:
    state = tmp_path / "state.db"
    applied = cli(
        "--state", str(state), "-q", "apply", str(repo_root / "configs" / "demo"), "--auto-approve"
    )
    assert applied.exit_code == 0, applied.stderr
    return Account(state, cli)


def test_a_fresh_demo_account_shows_its_limits_all_idle(account: Account) -> None:
    doc = account.status()
    assert doc["format_version"] == "1"
    (queue,) = doc["queues"]
    assert queue["name"] == "training"
    assert queue["capacity"] == {G5: 16, P5: 8}
    assert [s["name"] for s in queue["shares"]] == [
        "nlp",
        "ranking",
        "research",
        "vision-experiments",
    ]
    assert figures(doc, "nlp", P5) == (4, 0, 0, 0, 4, 0, 8)  # own 4 + borrow up to 4 more
    assert figures(doc, "ranking", G5) == (4, 0, 0, 0, 0, 0, 4)  # reserve: never idle
    assert figures(doc, "research", P5) == (2, 0, 0, 0, 2, 0, 2)
    assert figures(doc, "research", G5) == (4, 0, 0, 0, 4, 0, 4)
    # unlimited borrowing: all of the lendable g5 (research 4 + its own 8), all p5 (2+4+2)
    assert figures(doc, "vision-experiments", G5) == (8, 0, 0, 0, 8, 0, 12)
    assert figures(doc, "vision-experiments", P5) == (2, 0, 0, 0, 2, 0, 8)
    assert queue["borrowing"] == []
    assert all(s["jobs"] == IDLE_JOBS and s["head"] is None for s in queue["shares"])
    assert all(s["preempted_24h"] == 0 for s in queue["shares"])
    assert [t["name"] for t in doc["teams"]] == ["nlp", "ranking", "research", "vision"]
    vision = doc["teams"][3]["capacity"]
    assert vision == [
        {"instance_type": G5, "limit": 8, "in_use": 0, "borrowed": 0, "lent": 0},
        {"instance_type": P5, "limit": 2, "in_use": 0, "borrowed": 0, "lent": 0},
    ]


def test_a_borrower_of_two_lenders_is_split_by_their_idle_capacity(account: Account) -> None:
    account.submit("nlp-a", "nlp", P5, 4)
    account.submit("nlp-b", "nlp", P5, 3)
    account.advance("1m")
    doc = account.status()
    assert figures(doc, "nlp", P5) == (4, 7, 4, 3, 0, 0, 1)
    # research and vision each have 2 idle: each lends half of the 3 borrowed
    assert figures(doc, "research", P5) == (2, 0, 0, 0, 2, 1.5, 1)
    assert figures(doc, "vision-experiments", P5) == (2, 0, 0, 0, 2, 1.5, 1)
    assert pairs(doc) == [
        (P5, "nlp", "research", 1.5),
        (P5, "nlp", "vision-experiments", 1.5),
    ]
    assert share(doc, "nlp")["jobs"] == {**IDLE_JOBS, "RUNNING": 2}
    assert doc["teams"][0]["capacity"] == [
        {"instance_type": P5, "limit": 4, "in_use": 7, "borrowed": 3, "lent": 0}
    ]
    research_team = {c["instance_type"]: c["lent"] for c in doc["teams"][2]["capacity"]}
    assert research_team == {G5: 0, P5: 1.5}


def test_lenders_turned_reserve_leave_the_borrowing_unattributed(account: Account) -> None:
    """nlp borrows 3 p5 from research and vision; both stop lending while it runs."""
    account.submit("nlp-a", "nlp", P5, 4)
    account.submit("nlp-b", "nlp", P5, 3)
    account.advance("1m")
    account.reserve("research")
    doc = account.status()
    # vision's 2 idle p5 cover 2 of the 3 borrowed; the third is attributed to no lender
    assert figures(doc, "research", P5)[:6] == (2, 0, 0, 0, 0, 0)
    assert figures(doc, "vision-experiments", P5)[4:6] == (2, 2)
    assert pairs(doc) == [(P5, "nlp", "vision-experiments", 2), (P5, "nlp", None, 1)]
    account.reserve("vision-experiments")
    doc = account.status()
    assert figures(doc, "nlp", P5)[3] == 3
    assert pairs(doc) == [(P5, "nlp", None, 3)]
    text = account.text()
    assert "No share is borrowing." not in text
    assert "3 borrowed ml.p5.48xlarge attributed to no lender" in text


def test_unequal_idle_lenders_lend_in_proportion(account: Account) -> None:
    """vision uses 1 of its 2 p5: research (2 idle) lends twice what vision (1 idle) does."""
    account.submit("vision-a", "vision-experiments", P5, 1)
    account.submit("nlp-a", "nlp", P5, 4)
    account.submit("nlp-b", "nlp", P5, 2)
    account.advance("1m")
    doc = account.status()
    assert figures(doc, "research", P5)[5] == 1.33
    assert figures(doc, "vision-experiments", P5)[5] == 0.67
    assert pairs(doc) == [(P5, "nlp", "research", 1.33), (P5, "nlp", "vision-experiments", 0.67)]
    (queue,) = doc["queues"]
    lent = sum(
        c["lent"] for s in queue["shares"] for c in s["capacity"] if c["instance_type"] == P5
    )
    assert lent == pytest.approx(2)


def test_a_reclaim_an_in_share_preemption_and_a_lowered_limit(account: Account) -> None:
    account.submit("nlp-a", "nlp", P5, 4)
    account.advance("1s")  # nlp-a first: jobs created in one millisecond go in job-ID order
    account.submit("nlp-b", "nlp", P5, 3)
    account.advance("1m")

    # research takes its 2 p5 back: nlp-b (borrowing 3) is preempted and cannot borrow again
    account.submit("research-r", "research", P5, 2)
    account.advance("1m")
    doc = account.status()
    assert figures(doc, "nlp", P5) == (4, 4, 4, 0, 0, 0, 2)
    assert figures(doc, "research", P5) == (2, 2, 2, 0, 0, 0, 0)
    assert figures(doc, "vision-experiments", P5) == (2, 0, 0, 0, 2, 0, 2)
    assert pairs(doc) == []
    assert share(doc, "nlp")["preempted_24h"] == 1
    assert share(doc, "nlp")["jobs"] == {**IDLE_JOBS, "RUNNABLE": 1, "RUNNING": 1}
    assert head(doc, "nlp") == ("nlp-b", "no-idle-capacity")
    assert head(doc, "research") is None

    # a priority-10 nlp job preempts nlp-a inside the share and runs partly on lent capacity
    account.submit("nlp-urgent", "nlp", P5, 4, priority=10)
    account.advance("1m")
    doc = account.status()
    assert figures(doc, "nlp", P5) == (4, 4, 4, 0, 0, 0, 2)
    assert share(doc, "nlp")["preempted_24h"] == 2
    assert share(doc, "nlp")["jobs"] == {**IDLE_JOBS, "RUNNABLE": 2, "RUNNING": 1}
    assert head(doc, "nlp") == ("nlp-a", "no-idle-capacity")

    # research's p5 limit drops to 1 under research-r (2): the excess counts as borrowed,
    # attributed to the only lender with idle p5 (vision)
    account.lower("research", {P5: 1, G5: 4})
    doc = account.status()
    assert figures(doc, "research", P5) == (1, 2, 1, 1, 0, 0, 0)
    assert figures(doc, "vision-experiments", P5) == (2, 0, 0, 0, 2, 1, 1)
    assert figures(doc, "nlp", P5) == (4, 4, 4, 0, 0, 0, 1)
    assert pairs(doc) == [(P5, "research", "vision-experiments", 1)]

    # a day later the preemptions have left the 24-hour window
    account.advance("25h")
    assert share(account.status(), "nlp")["preempted_24h"] == 0


@pytest.mark.parametrize(
    ("jobs", "share_name", "code"),
    [
        ([("r1", "ranking", G5, 4), ("r2", "ranking", G5, 1)], "ranking", "share-at-limit"),
        ([("n1", "nlp", P5, 4), ("n2", "nlp", P5, 5)], "nlp", "borrow-limit"),
        ([("r1", "ranking", P5, 1)], "ranking", "misconfigured"),
        (
            [("v1", "vision-experiments", P5, 8), ("n1", "nlp", P5, 5)],
            "nlp",
            "no-idle-capacity",
        ),
    ],
)
def test_the_head_of_a_share_carries_its_wait_code(
    account: Account, jobs: list[tuple[str, str, str, int]], share_name: str, code: str
) -> None:
    for name, share_of, instance_type, count in jobs:
        account.submit(name, share_of, instance_type, count)
    account.advance("1m")
    assert head(account.status(), share_name) == (jobs[-1][0], code)


def test_team_and_queue_filters(account: Account) -> None:
    account.submit("nlp-a", "nlp", P5, 5)
    account.advance("1m")
    doc = account.status("--team", "research")
    (queue,) = doc["queues"]
    assert [s["name"] for s in queue["shares"]] == ["research"]
    assert [t["name"] for t in doc["teams"]] == ["research"]
    assert pairs(doc) == [(P5, "nlp", "research", 0.5)]
    nobody = account.cli("--state", str(account.state), "-q", "status", "--team", "nobody")
    assert nobody.exit_code == 1
    assert "error[not-found]: no quota share of team 'nobody'" in nobody.stderr
    result = account.cli("--state", str(account.state), "status", "--queue", "missing")
    assert result.exit_code == 1
    assert "error[not-found]" in result.stderr
    assert result.stdout == ""


def test_an_account_without_queues_shows_nothing_and_succeeds(cli: Cli, tmp_path: Path) -> None:
    state = str(tmp_path / "empty.db")
    document = json.loads(cli("--state", state, "-q", "status", "-o", "json").stdout)
    assert (document["queues"], document["teams"]) == ([], [])
    text = cli("--state", state, "-q", "status")
    assert text.exit_code == 0
    assert "Nothing to show" in text.stdout
