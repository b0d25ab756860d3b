"""The plan views, from hand-built plans, with exact expected output (colourless, fixed width)."""

from __future__ import annotations

import io
import json

from quotactl.core.apply.hooks import ApplyResult, ChangeOutcome, Status
from quotactl.core.plan.model import (
    Action,
    AffectedJob,
    Change,
    Effect,
    FieldChange,
    Impact,
    Plan,
)
from quotactl.core.resources.desired import (
    STACK_TAG,
    EnvironmentSpec,
    QueueSpec,
    ShareSpec,
    Strategy,
)
from quotactl.core.resources.observed import Kind
from quotactl.render.console import make_console
from quotactl.render.plan import plan_json, plan_markdown, print_plan
from quotactl.render.progress import ProgressHooks

TAGS = {STACK_TAG: "demo"}
ENV = EnvironmentSpec("gpu", {"ml.g5.xlarge": 8}, tags=TAGS)
NLP = ShareSpec("training", "nlp", {"ml.g5.xlarge": 4}, Strategy.LEND, tags=TAGS)
NLP_SMALL = ShareSpec("training", "nlp", {"ml.g5.xlarge": 2}, Strategy.LEND, tags=TAGS)
OLD = ShareSpec("training", "old", {"ml.g5.xlarge": 1}, tags=TAGS)
MOVED = ShareSpec("inference", "cv", {"ml.g5.xlarge": 1}, tags=TAGS)
WAS = ShareSpec("training", "cv", {"ml.g5.xlarge": 1}, tags=TAGS)
JOB = AffectedJob("j-1", "train-bert", "nlp", "RUNNING", {"ml.g5.xlarge": 2})
ARN = "arn:aws:batch:us-east-1:123456789012:job-queue/training"

PLAN = Plan(
    stack="demo",
    region="us-east-1",
    account_id=None,
    fingerprint="sha256:abc",
    changes=(
        Change(Kind.ENVIRONMENT, Action.CREATE, None, ENV),
        Change(
            Kind.SHARE,
            Action.UPDATE,
            NLP,
            NLP_SMALL,
            arn=f"{ARN}/quota-share/nlp",
            fields=(FieldChange("capacity[ml.g5.xlarge]", 4, 2),),
            impact=(
                Impact(
                    Effect.PREEMPTIBLE,
                    "usage of ml.g5.xlarge is 3, above the new limit 2: 1 job becomes preemptible",
                    (JOB,),
                ),
            ),
        ),
        Change(
            Kind.SHARE,
            Action.REPLACE,
            WAS,
            MOVED,
            arn=f"{ARN}/quota-share/cv",
            fields=(FieldChange("queue", "training", "inference", forces_replacement=True),),
        ),
        Change(Kind.SHARE, Action.DELETE, OLD, None, arn=f"{ARN}/quota-share/old"),
    ),
)

EXPECTED_TEXT = """\
quotactl will perform the following actions:

+ environment.gpu will be created
    capacity[ml.g5.xlarge]: 8
    enabled:                true
    tags[quotactl:stack]:   "demo"

~ share.training/nlp will be updated in place
    capacity[ml.g5.xlarge]: 4 → 2
    ! usage of ml.g5.xlarge is 3, above the new limit 2: 1 job becomes preemptible
        train-bert (share nlp, RUNNING, 2<times> ml.g5.xlarge)

-/+ share.inference/cv must be replaced (from share.training/cv)
    queue: "training" → "inference" (forces replacement)

- share.training/old will be deleted

Plan: 1 to create, 1 to update, 1 to replace, 1 to delete.
Disruption: 1 job holding instances (1 preemptible); apply refuses without <flags>.
""".replace("<times>", "\u00d7").replace("<flags>", "--allow-disruption or --max-disruption 1")


def render(plan: Plan) -> str:
    out = io.StringIO()
    print_plan(plan, make_console(out, color=False, width=100))
    return out.getvalue()


def test_text_view_has_one_block_per_change_and_the_summary_line() -> None:
    assert render(PLAN) == EXPECTED_TEXT


def test_empty_plan_says_no_changes() -> None:
    empty = Plan("demo", "us-east-1", None, (), "sha256:abc")
    assert render(empty) == "No changes. Live resources match the configuration.\n"


def test_json_view_is_the_versioned_plan_document() -> None:
    document = json.loads(plan_json(PLAN))
    assert document["format_version"] == "1"
    assert document["fingerprint"] == "sha256:abc"
    assert document["summary"] == {"create": 1, "update": 1, "replace": 1, "delete": 1}
    update = document["changes"][1]
    assert update["address"] == "share.training/nlp"
    assert update["action"] == "update"
    assert update["fields"] == [
        {"path": "capacity[ml.g5.xlarge]", "before": 4, "after": 2, "forces_replacement": False}
    ]
    assert update["impact"][0]["jobs"][0]["id"] == "j-1"
    assert document["changes"][2]["previous_address"] == "share.training/cv"
    assert document["disruption"] == {
        "jobs": 1,
        "terminated": 0,
        "preemptible": 1,
        "disabled": 0,
        "job_ids": ["j-1"],
    }


def test_markdown_view_puts_summary_and_impact_first_and_the_plan_in_a_diff_block() -> None:
    text = plan_markdown(PLAN)
    assert text.startswith(
        "### quotactl plan for stack `demo`\n\n"
        "**Plan: 1 to create, 1 to update, 1 to replace, 1 to delete.**\n\n"
        "> [!CAUTION]\n"
        "> **Disruption: 1 job holding instances (1 preemptible); apply refuses without"
        " --allow-disruption or --max-disruption 1.**\n\n"
        "> [!WARNING]\n> **Runtime impact**\n>\n"
        "> - `share.training/nlp`: usage of ml.g5.xlarge is 3, above the new limit 2: "
        "1 job becomes preemptible: `train-bert`\n"
    )
    assert "```diff\nquotactl will perform the following actions:" in text
    assert "<details>" not in text  # short plans are shown inline
    assert text.rstrip().endswith("<sub>Fingerprint of the live state read: `sha256:abc`</sub>")


def test_markdown_view_collapses_long_plans() -> None:
    shares = tuple(
        Change(Kind.SHARE, Action.CREATE, None, ShareSpec("q", f"team{i}", {"ml.g5.xlarge": 1}))
        for i in range(30)
    )
    long_plan = Plan("demo", "us-east-1", None, shares, "sha256:abc")
    text = plan_markdown(long_plan)
    assert "<details><summary>Show the plan (30 changes)</summary>" in text
    assert "**Plan: 30 to create, 0 to update, 0 to replace, 0 to delete.**" in text


def test_progress_prints_one_line_per_change_and_a_closing_line() -> None:
    out = io.StringIO()
    hooks = ProgressHooks(make_console(out, color=False, width=100), live=False)
    queue = QueueSpec("training", "gpu", "training-quota", tags=TAGS)
    hooks.apply_started(PLAN)
    hooks.before_change(Change(Kind.QUEUE, Action.CREATE, None, queue))
    outcomes = (
        ChangeOutcome("queue.training", Action.CREATE, Status.DONE, None, 1.25),
        ChangeOutcome(
            "share.training/nlp", Action.CREATE, Status.FAILED, "CreateQuotaShare: boom", 0.5
        ),
        ChangeOutcome("share.training/cv", Action.CREATE, Status.SKIPPED, "queue.x failed", 0.0),
    )
    for outcome in outcomes:
        hooks.after_change(outcome)
    hooks.apply_finished(ApplyResult(outcomes, 2.0))
    assert out.getvalue() == (
        "+ queue.training: created (1.2s)\n"
        "+ share.training/nlp: failed: CreateQuotaShare: boom\n"
        "+ share.training/cv: skipped (queue.x failed)\n"
        "Apply failed: 1 failed, 1 skipped, 1 done in 2.0s.\n"
    )


def test_progress_summarises_a_clean_apply() -> None:
    out = io.StringIO()
    hooks = ProgressHooks(make_console(out, color=False, width=100), live=False)
    outcome = ChangeOutcome("share.training/old", Action.DELETE, Status.DONE, None, 3.0)
    hooks.apply_finished(ApplyResult((outcome,), 3.0))
    assert out.getvalue() == (
        "Apply complete: 0 created, 0 updated, 0 replaced, 1 deleted in 3.0s.\n"
    )


def test_a_job_two_changes_stop_is_listed_once_with_where_it_is() -> None:
    queue = QueueSpec("training", "gpu", "training-quota", tags=TAGS)
    other = AffectedJob("j-2", "train-gpt", "nlp", "RUNNABLE", {"ml.g5.xlarge": 1})
    stopping = Impact(Effect.TERMINATED, "deleting the share terminates 2 jobs", (JOB, other))
    plan = Plan(
        stack="demo",
        region="us-east-1",
        account_id=None,
        fingerprint="sha256:abc",
        changes=(
            Change(Kind.SHARE, Action.DELETE, NLP, None, arn="s", impact=(stopping,)),
            Change(
                Kind.QUEUE,
                Action.DELETE,
                queue,
                None,
                arn=ARN,
                impact=(
                    Impact(Effect.TERMINATED, "deleting the queue terminates 2 jobs", (JOB, other)),
                ),
            ),
        ),
    )
    buffer = io.StringIO()
    print_plan(plan, make_console(buffer, color=False, width=100))
    text = buffer.getvalue()
    assert text.count("train-bert") == 1
    assert text.count("train-gpt") == 1
    assert "        (2 jobs listed under share.training/nlp)\n" in text
