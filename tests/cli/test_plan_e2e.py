"""plan and apply end to end: the real CLI against the embedded emulator, as a user runs them."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client
from quotactl.core.resources.desired import STACK_TAG
from tests.conftest import TEST_TIMING, emulator_variant

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

NLP = Path("configs/demo/teams/nlp.yaml")
STATE = Path(".quotactl/emulator.db")


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path) -> Path:
    """A working directory holding a copy of configs/demo and an empty emulated account."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "configs" / "demo")
    return tmp_path


@pytest.fixture
def applied(demo: Path, cli: Cli) -> Path:
    result = cli("apply", "configs/demo", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    return demo


def batch() -> Any:
    """A boto3 client on the same emulated account, for out-of-band changes."""
    return client(Target("local", STATE, timing=TEST_TIMING))


def share_limit(name: str) -> dict[str, int]:
    shares = batch().list_quota_shares(jobQueue="training")["quotaShares"]
    (share,) = [s for s in shares if s["quotaShareName"] == name]
    return {c["capacityUnit"]: c["maxCapacity"] for c in share["capacityLimits"]}


def test_demo_applies_from_empty_and_then_plans_clean(demo: Path, cli: Cli) -> None:
    result = cli("apply", "configs/demo", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    assert "Apply complete: 7 created, 0 updated, 0 replaced, 0 deleted" in result.stdout
    assert "using the local emulator" in result.stderr
    again = cli("plan", "configs/demo", "--detailed-exitcode")
    assert again.exit_code == 0
    assert again.stdout.startswith("No changes.")


def test_a_config_change_makes_plan_exit_2_and_shows_the_field(applied: Path, cli: Cli) -> None:
    NLP.write_text(NLP.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 3}"))
    result = cli("plan", "configs/demo", "--detailed-exitcode")
    assert result.exit_code == 2
    assert "~ share.training/nlp will be updated in place" in result.stdout
    assert "capacity[ml.p5.48xlarge]: 4 → 3" in result.stdout
    assert result.stdout.rstrip().endswith(
        "Plan: 0 to create, 1 to update, 0 to replace, 0 to delete."
    )
    assert cli("apply", "configs/demo", "--auto-approve").exit_code == 0
    assert share_limit("nlp") == {"ml.p5.48xlarge": 3}


def test_a_delete_without_allow_delete_is_refused_and_changes_nothing(
    applied: Path, cli: Cli
) -> None:
    Path("configs/demo/teams/research.yaml").unlink()
    refused = cli("apply", "configs/demo", "--auto-approve")
    assert refused.exit_code == 1
    assert "error[delete-not-allowed]" in refused.stderr
    assert "share.training/research" in refused.stderr
    assert "research" in [
        s["quotaShareName"] for s in batch().list_quota_shares(jobQueue="training")["quotaShares"]
    ]
    allowed = cli("apply", "configs/demo", "--auto-approve", "--allow-delete")
    assert allowed.exit_code == 0, allowed.stderr
    assert "- share.training/research: deleted" in allowed.stdout
    assert cli("plan", "configs/demo", "--detailed-exitcode").exit_code == 0


def test_a_saved_plan_is_refused_as_stale_after_an_out_of_band_change(
    applied: Path, cli: Cli
) -> None:
    NLP.write_text(NLP.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 3}"))
    assert cli("plan", "configs/demo", "--out", "plan.json").exit_code == 0
    shares = batch().list_quota_shares(jobQueue="training")["quotaShares"]
    (research,) = [s for s in shares if s["quotaShareName"] == "research"]
    batch().update_quota_share(
        quotaShareArn=research["quotaShareArn"],
        capacityLimits=[{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 1}],
    )
    result = cli("apply", "--plan", "plan.json", "--auto-approve")
    assert result.exit_code == 1
    assert "error[plan-stale]" in result.stderr
    assert share_limit("nlp") == {"ml.p5.48xlarge": 4}  # nothing applied


def test_a_saved_plan_applies_exactly_what_it_says(applied: Path, cli: Cli) -> None:
    NLP.write_text(NLP.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 3}"))
    assert cli("plan", "configs/demo", "--out", "plan.json").exit_code == 0
    NLP.write_text(NLP.read_text().replace("{ml.p5.48xlarge: 3}", "{ml.p5.48xlarge: 1}"))
    result = cli("apply", "--plan", "plan.json", "--auto-approve")
    assert result.exit_code == 0, result.stderr
    assert share_limit("nlp") == {"ml.p5.48xlarge": 3}  # the plan's value, not today's config


@pytest.mark.parametrize("content", [b"\x9c\x00garbage", b"{not json", b'{"format_version": "1"}'])
def test_apply_refuses_a_file_that_is_not_a_plan_with_plan_invalid(
    applied: Path, cli: Cli, content: bytes
) -> None:
    Path("plan.json").write_bytes(content)
    result = cli("apply", "--plan", "plan.json", "--auto-approve")
    assert result.exit_code == 1
    assert "error[plan-invalid]" in result.stderr
    assert "`quotactl plan --out FILE`" in result.stderr


def test_plan_out_that_is_a_directory_is_an_io_error(demo: Path, cli: Cli) -> None:
    Path("a-directory").mkdir()
    result = cli("plan", "configs/demo", "--out", "a-directory")
    assert result.exit_code == 1
    assert "error[io-error]: plan file a-directory is a directory, not a file" in result.stderr
    assert "error[internal]" not in result.stderr


def test_export_round_trips_to_a_clean_plan(applied: Path, cli: Cli) -> None:
    exported = cli("export", "--out", "exported")
    assert exported.exit_code == 0, exported.stderr
    files = sorted(str(p.relative_to("exported")) for p in Path("exported").rglob("*.yaml"))
    assert files == [
        "platform.yaml",
        "teams/nlp.yaml",
        "teams/ranking.yaml",
        "teams/research.yaml",
        "teams/vision.yaml",  # the team that declared share vision-experiments (quotactl:team)
    ]
    plan = cli("plan", "exported", "--detailed-exitcode")
    assert plan.exit_code == 0, plan.stdout + plan.stderr
    single = cli("export")
    Path("single.yaml").write_text(single.stdout)
    assert cli("plan", "single.yaml", "--detailed-exitcode").exit_code == 0


def test_export_into_a_path_it_cannot_write_is_an_io_error(applied: Path, cli: Cli) -> None:
    Path("a-file").write_text("x")
    Path("blocked").mkdir()
    Path("blocked/platform.yaml").mkdir()  # a directory where a file must go
    for out, says in (
        ("a-file", "--out a-file is a file, not a directory"),
        ("blocked", "config file blocked/platform.yaml is a directory, not a file"),
    ):
        result = cli("export", "--out", out, "--force")
        assert result.exit_code == 1, result.stderr
        assert f"error[io-error]: {says}" in result.stderr
    assert Path("a-file").read_text() == "x"


def test_export_of_an_empty_account_says_there_is_nothing_to_export(demo: Path, cli: Cli) -> None:
    result = cli("export")
    assert result.exit_code == 1
    assert "error[not-found]: the account has no quota-management job queue" in result.stderr


def test_json_plan_puts_only_json_on_stdout(demo: Path, cli: Cli) -> None:
    result = cli("plan", "configs/demo", "-o", "json")
    document = json.loads(result.stdout)
    assert document["format_version"] == "1"
    assert document["summary"]["create"] == 7
    assert "using the local emulator" in result.stderr


def test_markdown_plan_is_a_pr_comment(demo: Path, cli: Cli) -> None:
    result = cli("plan", "configs/demo", "-o", "markdown")
    assert result.stdout.startswith("### quotactl plan for stack `demo`")
    assert "```diff" in result.stdout


def test_apply_without_a_terminal_or_auto_approve_refuses(demo: Path, cli: Cli) -> None:
    result = cli("apply", "configs/demo")
    assert result.exit_code == 1
    assert "error[approval-required]" in result.stderr
    assert cli("plan", "configs/demo", "--detailed-exitcode").exit_code == 2


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "code"), [("yes\n", 0), ("no\n", 1)])
def test_apply_on_a_terminal_asks_for_yes(
    demo: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, answer: str, code: int
) -> None:
    monkeypatch.setattr("sys.stdin", Terminal(answer))
    result = cli("apply", "configs/demo")
    assert result.exit_code == code
    assert "Only 'yes' will be accepted." in result.stdout
    assert cli("plan", "configs/demo", "--detailed-exitcode").exit_code == (0 if code == 0 else 2)


def test_dry_run_prints_the_plan_and_changes_nothing(demo: Path, cli: Cli) -> None:
    result = cli("apply", "configs/demo", "--dry-run")
    assert result.exit_code == 0
    assert "Plan: 7 to create" in result.stdout
    assert "Dry run: nothing was changed." in result.stderr
    assert cli("plan", "configs/demo", "--detailed-exitcode").exit_code == 2


def test_an_untagged_resource_must_be_imported_first(applied: Path, cli: Cli) -> None:
    queue_arn = batch().describe_job_queues(jobQueues=["training"])["jobQueues"][0]["jobQueueArn"]
    batch().untag_resource(resourceArn=queue_arn, tagKeys=[STACK_TAG])
    refused = cli("plan", "configs/demo")
    assert refused.exit_code == 1
    assert "error[unmanaged-resource]" in refused.stderr
    assert "quotactl import" in refused.stderr
    imported = cli("import", "configs/demo", "--auto-approve")
    assert imported.exit_code == 0, imported.stderr
    assert "queue.training" in imported.stdout
    assert cli("plan", "configs/demo", "--detailed-exitcode").exit_code == 0


def test_import_refuses_what_another_stack_owns_and_tags_nothing(applied: Path, cli: Cli) -> None:
    untagged = batch().describe_job_queues(jobQueues=["training"])["jobQueues"][0]["jobQueueArn"]
    batch().untag_resource(resourceArn=untagged, tagKeys=[STACK_TAG])
    foreign = batch().list_quota_shares(jobQueue="training")["quotaShares"][0]["quotaShareArn"]
    batch().tag_resource(resourceArn=foreign, tags={STACK_TAG: "someone-else"})
    refused = cli("import", "configs/demo", "--auto-approve")
    assert refused.exit_code == 1
    assert "error[unmanaged-resource]" in refused.stderr
    assert "(stack 'someone-else')" in refused.stderr
    assert STACK_TAG not in batch().list_tags_for_resource(resourceArn=untagged)["tags"]


def test_iam_policy_prints_a_policy_document(cli: Cli, demo: Path) -> None:
    result = cli("iam-policy", "configs/demo")
    document = json.loads(result.stdout)
    assert document["Version"] == "2012-10-17"
    actions = {
        a
        for s in document["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    assert {
        "batch:CreateQuotaShare",
        "sts:GetCallerIdentity",
        "iam:CreateServiceLinkedRole",
    } <= actions


def submit(name: str, instances: int, share: str = "nlp") -> None:
    payload = {
        "TrainingJobName": name,
        "RoleArn": "arn:aws:iam::123456789012:role/training",
        "AlgorithmSpecification": {"TrainingImage": "image", "TrainingInputMode": "File"},
        "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
        "ResourceConfig": {
            "InstanceType": "ml.p5.48xlarge",
            "InstanceCount": instances,
            "VolumeSizeInGB": 10,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    }
    batch().submit_service_job(
        jobName=name,
        jobQueue="training",
        serviceJobType="SAGEMAKER_TRAINING",
        serviceRequestPayload=json.dumps(payload),
        quotaShareName=share,
    )


def test_plan_names_the_live_jobs_a_change_would_disturb(applied: Path, cli: Cli) -> None:
    from quotactl.emulator import Emulator

    submit("bert-large", 3)
    submit("bert-small", 1)
    submit("survey", 1, share="research")
    with Emulator(STATE, timing=TEST_TIMING, variant=emulator_variant()) as emulator:
        emulator.advance(60)  # the jobs start
    NLP.write_text(NLP.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 3}"))
    Path("configs/demo/teams/research.yaml").unlink()
    result = cli("plan", "configs/demo")
    assert (
        "usage of ml.p5.48xlarge is 4, above the new limit 3: 1 job becomes preemptible"
        in result.stdout
    )
    assert "deleting the share terminates 1 job" in result.stdout
    assert "survey (share research, RUNNING, 1\u00d7 ml.p5.48xlarge)" in result.stdout
    document = json.loads(cli("plan", "configs/demo", "-o", "json").stdout)
    impacts = {c["address"]: c["impact"] for c in document["changes"]}
    assert [j["name"] for j in impacts["share.training/research"][0]["jobs"]] == ["survey"]


def test_debug_reports_the_api_calls_a_plan_made(applied: Path, cli: Cli) -> None:
    result = cli("--debug", "plan", "configs/demo")
    assert result.exit_code == 0
    assert "API calls (" in result.stderr
    assert "ListServiceJobs" not in result.stderr  # no change disturbs a job: none are read


@pytest.mark.parametrize(
    ("argv", "no_color", "coloured"),
    [
        ((), None, True),
        (("--no-color",), None, False),
        ((), "1", False),
        ((), "", True),  # no-color.org: an empty NO_COLOR does not count
    ],
)
def test_colour_follows_no_color_and_quiet_silences_the_local_notice(
    demo: Path,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
    no_color: str | None,
    coloured: bool,
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich colours a captured stream only when forced
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color is not None:
        monkeypatch.setenv("NO_COLOR", no_color)
    result = cli(*argv, "-q", "plan", "configs/demo")
    assert result.exit_code == 0, result.stderr
    assert ("\x1b[" in result.stdout) is coloured
    if not coloured:
        assert "+ share.training/nlp will be created" in result.stdout
    assert result.stderr == ""  # -q: no "using the local emulator" notice
