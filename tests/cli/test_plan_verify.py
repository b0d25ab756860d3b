"""Saved plans are verified, not trusted: tampered files are refused and live stays as it was.

One reviewed plan (an update, a create and a delete on the demo stack) is tampered with in
each way an attacker with write access to the CI artifact could, and ``apply --plan`` must
refuse every variant with its error code, change nothing live, and leave no lock behind.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.backend import AwsBackend
from quotactl.aws.session import Target, client
from quotactl.core.plan.envelope import sign
from quotactl.core.resources.desired import STACK_TAG
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.resources.observed import ObservedState
    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]
    Document = dict[str, Any]

STATE = Path(".quotactl/emulator.db")
SPEECH = """teams:
  - name: speech
    shares:
      - {queue: training, capacity: {ml.g5.12xlarge: 1}, sharing: lend}
"""


def batch() -> Any:
    return client(Target("local", STATE, timing=TEST_TIMING))


def live() -> ObservedState:
    """Everything on the account (every stack's and no stack's shares of the queue)."""
    return AwsBackend(batch()).observe("demo", ["training"])


def rogue_share(name: str, tags: dict[str, str]) -> str:
    """A share made behind quotactl's back (no tags, or another stack's)."""
    created = batch().create_quota_share(
        quotaShareName=name,
        jobQueue="training",
        capacityLimits=[{"capacityUnit": "ml.g5.12xlarge", "maxCapacity": 1}],
        resourceSharingConfiguration={"strategy": "RESERVE"},
        preemptionConfiguration={"inSharePreemption": "DISABLED"},
        state="ENABLED",
        **({"tags": tags} if tags else {}),
    )
    return str(created["quotaShareArn"])


@pytest.fixture
def reviewed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli) -> Path:
    """The demo applied, then a plan (update nlp, create speech, delete ranking) saved."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUOTACTL_PLAN_KEY", raising=False)
    config = tmp_path / "demo"
    shutil.copytree(repo_root / "configs" / "demo", config)
    assert cli("apply", str(config), "--auto-approve", "-q").exit_code == 0
    nlp = config / "teams" / "nlp.yaml"
    nlp.write_text(nlp.read_text().replace("{ml.p5.48xlarge: 4}", "{ml.p5.48xlarge: 2}"))
    (config / "teams" / "ranking.yaml").unlink()
    (config / "teams" / "speech.yaml").write_text(SPEECH)
    saved = cli("plan", str(config), "--out", "plan.json", "-q")
    assert saved.exit_code == 0, saved.stderr
    return tmp_path / "plan.json"


def change(document: Document, address: str) -> Document:
    found: Document = next(c for c in document["changes"] if c["address"] == address)
    return found


NLP, SPEECH_SHARE, RANKING = "share.training/nlp", "share.training/speech", "share.training/ranking"


def after_differs_from_fields(doc: Document) -> None:
    change(doc, NLP)["after"]["capacity"]["ml.p5.48xlarge"] = 1  # fields still say 4 -> 2


def summary_changed(doc: Document) -> None:
    doc["summary"]["delete"] = 0


def out_of_range(doc: Document) -> None:
    change(doc, SPEECH_SHARE)["after"]["capacity"]["ml.g5.12xlarge"] = 10**30


def unknown_instance_type(doc: Document) -> None:
    share = change(doc, SPEECH_SHARE)["after"]
    share["capacity"] = {"ml.x99.mega": 1}


def forged_delete(arn: str, name: str) -> Callable[[Document], None]:
    def forge(doc: Document) -> None:
        target = change(doc, RANKING)
        target.update(address=f"share.training/{name}", name=name, arn=arn)

    return forge


def before_forged(doc: Document) -> None:
    """A ``before`` that live does not hold, with fields to match; the fingerprint is intact."""
    nlp = change(doc, NLP)
    nlp["before"]["capacity"]["ml.p5.48xlarge"] = 3
    nlp["fields"][0]["before"] = 3


def forged_stack_and_scope(doc: Document) -> None:
    doc["stack"] = "other"
    doc["scope"] = ["share.training/other-team"]


def account_removed(doc: Document) -> None:
    del doc["account_id"]


def account_null(doc: Document) -> None:
    doc["account_id"] = None


def account_changed(doc: Document) -> None:
    doc["account_id"] = "999999999999"
    for entry in doc["changes"]:
        if entry["arn"]:
            entry["arn"] = entry["arn"].replace("123456789012", "999999999999")


def path_like_name(doc: Document) -> None:
    target = change(doc, SPEECH_SHARE)
    target.update(address="share.training/../../x", name="../../x")
    doc["scope"] = sorted([a for a in doc["scope"] if a != SPEECH_SHARE] + [target["address"]])


def path_like_address(doc: Document) -> None:
    change(doc, NLP)["address"] = "share.training/../nlp"


def action_upgraded(doc: Document) -> None:
    change(doc, NLP)["action"] = "replace"
    doc["summary"].update(update=0, replace=1)


def impact_invented(doc: Document) -> None:
    change(doc, NLP)["impact"] = [
        {"effect": "terminated", "message": "nothing", "jobs": [
            {"id": "j", "name": "j", "share": "nlp", "status": "RUNNING", "instances": {}}]}
    ]  # fmt: skip


def unknown_key(doc: Document) -> None:
    doc["apply_also"] = ["share.training/research"]


def format_version_bumped(doc: Document) -> None:
    doc["format_version"] = "2"


@pytest.mark.parametrize(
    ("tamper", "code"),
    [
        (after_differs_from_fields, "plan-invalid"),
        (summary_changed, "plan-invalid"),
        (out_of_range, "plan-invalid"),
        (unknown_instance_type, "plan-invalid"),
        ("unowned", "not-owned"),
        ("other-stack", "not-owned"),
        (forged_stack_and_scope, "plan-invalid"),
        (before_forged, "plan-stale"),
        (account_removed, "plan-invalid"),
        (account_null, "plan-invalid"),
        (account_changed, "account-mismatch"),
        (path_like_name, "plan-invalid"),
        (path_like_address, "plan-invalid"),
        (action_upgraded, "plan-invalid"),
        (impact_invented, "plan-invalid"),
        (unknown_key, "plan-invalid"),
        (format_version_bumped, "plan-invalid"),
        ("deep", "plan-invalid"),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_a_tampered_plan_is_refused_and_changes_nothing(
    reviewed: Path, cli: Cli, tamper: Callable[[Document], None] | str, code: str
) -> None:
    document: Document = json.loads(reviewed.read_text())
    if tamper == "unowned":
        tamper = forged_delete(rogue_share("rogue", {}), "rogue")
    elif tamper == "other-stack":
        tamper = forged_delete(rogue_share("theirs", {STACK_TAG: "other"}), "theirs")
    before = live()
    if tamper == "deep":
        reviewed.write_text("[" * 200_000 + "]" * 200_000)
    else:
        assert callable(tamper)
        tampered = copy.deepcopy(document)
        tamper(tampered)
        reviewed.write_text(json.dumps(tampered))
    result = cli("apply", "--plan", str(reviewed), "--auto-approve", "--allow-delete")
    assert result.exit_code == 1, result.stdout
    assert f"error[{code}]" in result.stderr
    assert "nothing was changed" in result.stderr
    assert "Traceback" not in result.stderr
    assert live() == before
    # No lock was left behind: the untouched plan still applies.
    reviewed.write_text(json.dumps(document))
    assert cli("apply", "--plan", str(reviewed), "--auto-approve", "--allow-delete").exit_code == 0


def test_the_untampered_plan_applies_exactly(reviewed: Path, cli: Cli) -> None:
    result = cli("apply", "--plan", str(reviewed), "--auto-approve", "--allow-delete")
    assert result.exit_code == 0, result.stderr
    shares = {r.address: r for r in live().present().values() if r.address.startswith("share.")}
    assert RANKING not in shares
    assert SPEECH_SHARE in shares
    assert shares[NLP].spec.capacity == {"ml.p5.48xlarge": 2}  # type: ignore[union-attr]


KEY, OTHER_KEY = "ci-secret-1", "someone-elses-key"


def signed_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUOTACTL_PLAN_KEY", KEY)
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    assert cli("plan", "demo", "--out", "plan.json", "-q").exit_code == 0
    return tmp_path / "plan.json"


def resigned(doc: Document) -> Document:
    return sign({k: v for k, v in doc.items() if k != "signature"}, OTHER_KEY)


def edited(doc: Document) -> Document:
    change(doc, "share.training/nlp")["after"]["capacity"]["ml.p5.48xlarge"] = 8
    return doc


def stripped(doc: Document) -> Document:
    return {k: v for k, v in doc.items() if k != "signature"}


@pytest.mark.parametrize("tamper", [edited, resigned, stripped], ids=lambda f: f.__name__)
def test_with_a_key_set_an_edited_resigned_or_unsigned_plan_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    repo_root: Path,
    cli: Cli,
    tamper: Callable[[Document], Document],
) -> None:
    path = signed_plan(tmp_path, monkeypatch, repo_root, cli)
    document = json.loads(path.read_text())
    assert document["signature"].startswith("hmac-sha256:")
    path.write_text(json.dumps(tamper(copy.deepcopy(document))))
    result = cli("apply", "--plan", str(path), "--auto-approve")
    assert result.exit_code == 1
    assert "error[plan-signature]" in result.stderr
    assert live().present() == {}  # nothing was created


def test_a_signed_plan_applies_with_its_key_and_is_refused_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli
) -> None:
    path = signed_plan(tmp_path, monkeypatch, repo_root, cli)
    monkeypatch.delenv("QUOTACTL_PLAN_KEY")
    refused = cli("apply", "--plan", str(path), "--auto-approve")
    assert refused.exit_code == 1
    assert "error[plan-signature]: the plan file is signed but QUOTACTL_PLAN_KEY is not set" in (
        refused.stderr
    )
    monkeypatch.setenv("QUOTACTL_PLAN_KEY", KEY)
    applied = cli("apply", "--plan", str(path), "--auto-approve")
    assert applied.exit_code == 0, applied.stderr
    assert "Apply complete: 7 created" in applied.stdout


def test_an_empty_key_is_refused_rather_than_signing_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_root: Path, cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUOTACTL_PLAN_KEY", "")
    shutil.copytree(repo_root / "configs" / "demo", tmp_path / "demo")
    result = cli("plan", "demo", "--out", "plan.json")
    assert result.exit_code == 1
    assert "error[plan-signature]: QUOTACTL_PLAN_KEY is set but empty" in result.stderr
    assert not (tmp_path / "plan.json").exists()
