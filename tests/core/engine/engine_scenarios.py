"""Scheduling scenarios as data: a config, then steps a user (or the SDK) takes, and checks.

The steps are what a client of the AWS API can do (submit a job to a share, update a job's
priority, change a share's limits, let time pass) and the checks are what it can observe
(status, statusReason, preemption count). So the same table drives the engine directly
(``test_engine_scenarios.py``) and can drive the emulator through boto3: a driver only needs
``submit``, ``set_priority``, ``set_limits``, ``advance`` and ``observe``.

``ACTIVE`` stands for SCHEDULED, STARTING or RUNNING (the emulator spends seconds in the first
two; the engine's checks do not depend on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.engine import reasons

if TYPE_CHECKING:
    from collections.abc import Mapping

ACTIVE = "ACTIVE"
G5 = "ml.g5.xlarge"
M5 = "ml.m5.large"


@dataclass(frozen=True)
class Share:
    name: str
    limits: Mapping[str, int]
    strategy: str = "RESERVE"
    borrow_limit: int = -1
    in_share_preemption: bool = False


@dataclass(frozen=True)
class Submit:
    name: str
    share: str
    count: int = 1
    instance_type: str = G5
    priority: int = 0
    duration: float = 300.0
    preemption_retries: int | None = None


@dataclass(frozen=True)
class SetPriority:
    name: str
    priority: int


@dataclass(frozen=True)
class SetLimits:
    share: str
    limits: Mapping[str, int]


@dataclass(frozen=True)
class Advance:
    seconds: float


@dataclass(frozen=True)
class Expect:
    """What a DescribeServiceJob of each named job shows now."""

    status: Mapping[str, str] = field(default_factory=dict)
    reason: Mapping[str, str | None] = field(default_factory=dict)
    preemptions: Mapping[str, int] = field(default_factory=dict)


Step = Submit | SetPriority | SetLimits | Advance | Expect


@dataclass(frozen=True)
class Scenario:
    id: str
    environment: Mapping[str, int]
    shares: tuple[Share, ...]
    steps: tuple[Step, ...]


def _jobs(prefix: str, share: str, n: int, **kw: object) -> tuple[Submit, ...]:
    return tuple(Submit(f"{prefix}{i}", share, **kw) for i in range(1, n + 1))  # type: ignore[arg-type]


NOTEBOOK = Scenario(
    # The SageMaker SDK's quota-management sample notebook, step by step.
    id="sdk-notebook",
    environment={G5: 3},
    shares=(
        Share("QS1", {G5: 1}, "LEND_AND_BORROW", 200, in_share_preemption=True),
        Share("QS2", {G5: 1}, "LEND"),
        Share("QS3", {G5: 1}, "RESERVE"),
    ),
    steps=(
        Submit("qs1_job_high", "QS1", priority=3),
        Submit("qs1_job_med", "QS1", priority=2),
        Submit("qs1_job_low", "QS1", priority=1),
        # high runs on QS1's own instance, med borrows QS2's idle one, low waits: QS3 reserves.
        Expect(status={"qs1_job_high": ACTIVE, "qs1_job_med": ACTIVE, "qs1_job_low": "RUNNABLE"}),
        Submit("qs2_job_1", "QS2", priority=1),
        # QS2 reclaims its instance: med (QS1's lowest-priority borrower) goes back to RUNNABLE.
        Expect(
            status={
                "qs1_job_high": ACTIVE,
                "qs1_job_med": "RUNNABLE",
                "qs1_job_low": "RUNNABLE",
                "qs2_job_1": ACTIVE,
            },
            reason={"qs1_job_med": reasons.CROSS_SHARE_PREEMPTION},
            preemptions={"qs1_job_med": 1, "qs1_job_high": 0},
        ),
        SetPriority("qs1_job_low", 4),
        # In-share preemption: low (now 4) displaces high (3) on QS1's own instance.
        Expect(
            status={
                "qs1_job_low": ACTIVE,
                "qs1_job_high": "RUNNABLE",
                "qs1_job_med": "RUNNABLE",
                "qs2_job_1": ACTIVE,
            },
            reason={"qs1_job_high": reasons.IN_SHARE_PREEMPTION},
            preemptions={"qs1_job_high": 1},
        ),
        Advance(3600),
        Expect(
            status={
                "qs1_job_low": "SUCCEEDED",
                "qs1_job_high": "SUCCEEDED",
                "qs1_job_med": "SUCCEEDED",
                "qs2_job_1": "SUCCEEDED",
            }
        ),
    ),
)

BORROW_CAP = Scenario(
    # AWS's borrow-limit example: A and B LEND_AND_BORROW at 4 and 200 %: A reaches 8, not 12.
    id="borrow-cap-two-shares",
    environment={M5: 8},
    shares=(
        Share("A", {M5: 4}, "LEND_AND_BORROW", 200),
        Share("B", {M5: 4}, "LEND_AND_BORROW", 200),
    ),
    steps=(
        *_jobs("a", "A", 12, instance_type=M5),
        Expect(status={f"a{i}": ACTIVE if i <= 8 else "RUNNABLE" for i in range(1, 13)}),
    ),
)

BORROW_LIMIT_BINDS = Scenario(
    # With a large LEND share beside them, A stops at L + 200 % of L = 12, not at 16.
    id="borrow-limit-binds",
    environment={M5: 16},
    shares=(
        Share("A", {M5: 4}, "LEND_AND_BORROW", 200),
        Share("B", {M5: 4}, "LEND_AND_BORROW", 200),
        Share("C", {M5: 8}, "LEND"),
    ),
    steps=(
        *_jobs("a", "A", 14, instance_type=M5),
        Expect(status={f"a{i}": ACTIVE if i <= 12 else "RUNNABLE" for i in range(1, 15)}),
    ),
)

RESERVE_NEVER_LENT = Scenario(
    id="reserve-capacity-is-never-lent",
    environment={G5: 4},
    shares=(
        Share("borrower", {G5: 2}, "LEND_AND_BORROW", -1),
        Share("reserved", {G5: 2}, "RESERVE"),
    ),
    steps=(
        *_jobs("b", "borrower", 4),
        Expect(status={"b1": ACTIVE, "b2": ACTIVE, "b3": "RUNNABLE", "b4": "RUNNABLE"}),
    ),
)

LOWERED_LIMIT = Scenario(
    # Usage above a lowered limit counts as borrowed: those jobs are the first victims.
    id="lowered-limit-usage-is-reclaimed-first",
    environment={G5: 6},
    shares=(
        Share("A", {G5: 4}, "RESERVE"),
        Share("B", {G5: 2}, "LEND"),
    ),
    steps=(
        *_jobs("a", "A", 4, duration=7200),
        SetLimits("A", {G5: 2}),
        # Lowering a limit stops nothing by itself.
        Expect(status={f"a{i}": ACTIVE for i in range(1, 5)}),
        Submit("b1", "B", count=2),
        # The two most recently started of A's jobs make room; the oldest keep running.
        Expect(
            status={"a1": ACTIVE, "a2": ACTIVE, "a3": "RUNNABLE", "a4": "RUNNABLE", "b1": ACTIVE},
            reason={"a3": reasons.CROSS_SHARE_PREEMPTION, "a4": reasons.CROSS_SHARE_PREEMPTION},
        ),
    ),
)

PREEMPTION_RETRIES = Scenario(
    # preemptionRetriesBeforeTermination=0: the first preemption fails the job.
    id="preemption-retries-used-up-fail-the-job",
    environment={G5: 2},
    shares=(
        Share("borrower", {G5: 1}, "LEND_AND_BORROW", -1),
        Share("lender", {G5: 1}, "LEND"),
    ),
    steps=(
        Submit("own", "borrower"),
        Submit("fragile", "borrower", preemption_retries=0),
        Expect(status={"own": ACTIVE, "fragile": ACTIVE}),
        Submit("back", "lender"),
        Expect(
            status={"fragile": "FAILED", "back": ACTIVE},
            reason={
                "fragile": reasons.preemption_retries_exhausted(0, reasons.CROSS_SHARE_PREEMPTION)
            },
        ),
    ),
)

STRICT_ORDER = Scenario(
    # A head job that cannot start holds back its share's later, smaller jobs.
    id="head-job-blocks-its-share",
    environment={G5: 4},
    shares=(Share("A", {G5: 4}, "RESERVE"),),
    steps=(
        Submit("first", "A", count=3, duration=600),
        Submit("big", "A", count=2),
        Submit("small", "A", count=1),
        Expect(status={"first": ACTIVE, "big": "RUNNABLE", "small": "RUNNABLE"}),
        Advance(800),
        Expect(status={"first": "SUCCEEDED", "big": ACTIVE, "small": ACTIVE}),
    ),
)

IN_SHARE_ONLY_IF_ENOUGH = Scenario(
    # In-share preemption happens only if stopping lower-priority jobs frees enough.
    id="in-share-preemption-only-if-it-frees-enough",
    environment={G5: 4},
    shares=(Share("A", {G5: 4}, "RESERVE", in_share_preemption=True),),
    steps=(
        Submit("high", "A", count=2, priority=9),
        Submit("low", "A", count=2, priority=1),
        Submit("urgent", "A", count=4, priority=5),
        # Stopping low frees 2 of the 4 urgent needs: nothing is preempted.
        Expect(status={"high": ACTIVE, "low": ACTIVE, "urgent": "RUNNABLE"}),
    ),
)

SCENARIOS = (
    NOTEBOOK,
    BORROW_CAP,
    BORROW_LIMIT_BINDS,
    RESERVE_NEVER_LENT,
    LOWERED_LIMIT,
    PREEMPTION_RETRIES,
    STRICT_ORDER,
    IN_SHARE_ONLY_IF_ENOUGH,
)


@dataclass(frozen=True)
class MisconfigCase:
    """A job a share can never run, and the reason AWS gives (docs/scheduling.md)."""

    id: str
    environment: Mapping[str, int]
    shares: tuple[Share, ...]
    job: Submit
    reason: str


MISCONFIGURATION = (
    MisconfigCase(
        "more-than-environment-max",
        {M5: 4},
        (Share("A", {M5: 4}, "LEND_AND_BORROW", -1),),
        Submit("j", "A", count=5, instance_type=M5),
        reasons.SERVICE_ENVIRONMENT_MAX_RESOURCE,
    ),
    MisconfigCase(
        "reserve-over-limit",
        {M5: 16},
        (Share("A", {M5: 4}, "RESERVE"), Share("B", {M5: 12}, "LEND")),
        Submit("j", "A", count=5, instance_type=M5),
        reasons.QUOTA_SHARE_LIMIT,
    ),
    MisconfigCase(
        "lend-over-limit",
        {M5: 16},
        (Share("A", {M5: 4}, "LEND"), Share("B", {M5: 12}, "LEND")),
        Submit("j", "A", count=5, instance_type=M5),
        reasons.QUOTA_SHARE_LIMIT,
    ),
    MisconfigCase(
        "lend-and-borrow-over-limit-plus-borrow",
        {M5: 16},
        (Share("A", {M5: 2}, "LEND_AND_BORROW", 100), Share("B", {M5: 14}, "LEND")),
        Submit("j", "A", count=5, instance_type=M5),
        reasons.QUOTA_SHARE_BORROW_LIMIT,
    ),
    MisconfigCase(
        "lend-and-borrow-over-all-borrowable",
        {M5: 16},
        (
            Share("A", {M5: 2}, "LEND_AND_BORROW", -1),
            Share("B", {M5: 3}, "LEND"),
            Share("C", {M5: 11}, "RESERVE"),
        ),
        Submit("j", "A", count=6, instance_type=M5),
        reasons.QUOTA_SHARE_BORROWABLE,
    ),
    MisconfigCase(
        "instance-type-the-share-lacks",
        {M5: 4, G5: 4},
        (Share("A", {M5: 4}, "RESERVE"), Share("B", {G5: 4}, "LEND")),
        Submit("j", "A", count=1, instance_type=G5),
        reasons.QUOTA_SHARE_LIMIT,
    ),
    MisconfigCase(
        "instance-type-the-environment-lacks",
        {M5: 4},
        (Share("A", {M5: 4}, "RESERVE"),),
        Submit("j", "A", count=1, instance_type="ml.p5.48xlarge"),
        reasons.SERVICE_ENVIRONMENT_MAX_RESOURCE,
    ),
)
