"""The configuration language as pydantic models: one file's shape, and the merged whole.

Every model forbids unknown keys and is strict (no coercion: ``name: on`` is a boolean, not the
string ``"on"``, and ``priority: "5"`` is a string, not 5), because a config that YAML reads
differently from how its author meant it must fail loudly. Rules that need more than one value
(references, duplicates, AWS limits across shares) live in ``quotactl.config.checks``.

Empty lists and maps are plain defaults (``default=[]``), which pydantic copies for each
instance, rather than ``default_factory=list``: pydantic inspects a factory's signature, and
for ``list`` that means parsing its text signature (2 ms of every start-up); editors also see
the default in the JSON Schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from quotactl.config.policy_schema import (
    MAX_PRIORITY,
    Aging,
    BorrowLimit,
    Budget,
    Sharing,
    When,
    Window,
)
from quotactl.config.rules_schema import RuleEntry  # noqa: TC001 (pydantic reads it)
from quotactl.config.schema_base import (
    ACCOUNT_PATTERN,
    INT32_MAX,
    NAME_PATTERN,
    REGION_PATTERN,
    Capacity,
    Name,
    Strict,
    Tags,
)
from quotactl.core.resources.desired import TIME_LIMIT_REASONS

__all__ = ["ACCOUNT_PATTERN", "INT32_MAX", "NAME_PATTERN", "REGION_PATTERN", "Name", "Tags"]

RUNNABLE_REASONS = TIME_LIMIT_REASONS
RunnableReason = Literal[
    "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
    "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE",
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED",
]


class Platform(Strict):
    """The stack: declared exactly once across all files."""

    name: Name = Field(
        description="The stack name; every managed resource is tagged quotactl:stack=<name>."
    )
    region: str = Field(pattern=REGION_PATTERN, description="AWS region, e.g. us-east-1.")
    account_id: str | None = Field(
        default=None,
        pattern=ACCOUNT_PATTERN,
        description="The 12-digit AWS account id (quoted); the aws backend refuses any other.",
    )
    tags: Tags = Field(default={}, description="Tags added to every managed resource.")


class Environment(Strict):
    """A SAGEMAKER_TRAINING service environment: the capacity one queue schedules onto."""

    name: Name
    capacity: Capacity
    enabled: bool = True


class RunnableTimeout(Strict):
    """Terminate jobs stuck RUNNABLE for one of AWS's reasons (jobStateTimeLimitActions)."""

    seconds: int = Field(ge=600, le=86400, description="600 to 86400 seconds.")
    reasons: list[RunnableReason] = Field(min_length=1, max_length=len(RUNNABLE_REASONS))


class Queue(Strict):
    """A SAGEMAKER_TRAINING job queue; its FIFO scheduling policy <name>-quota is implied."""

    name: Name
    environment: Name = Field(description="The environment this queue uses (one queue each).")
    priority: int = Field(default=1, ge=0, le=1000, description="0 to 1000, default 1.")
    enabled: bool = True
    runnable_timeout: RunnableTimeout | None = None
    aging: Aging | None = Field(
        default=None, description="Raise waiting jobs' priorities as they wait."
    )


class Share(Strict):
    """A team's quota share on one queue."""

    queue: Name
    name: Name | None = Field(default=None, description="Default: the team's name.")
    capacity: Capacity
    sharing: Sharing = Field(
        description="reserve: keep idle capacity; lend: lend it out; "
        "lend_and_borrow: lend it and borrow others' idle capacity."
    )
    borrow_limit: BorrowLimit | None = None
    in_share_preemption: bool = Field(
        default=False,
        description="Let higher-priority jobs preempt lower-priority ones in this share.",
    )
    enabled: bool = True
    schedule: list[Window] = Field(
        default=[],
        description="Windows that override this share's settings while in force; "
        "the first that matches wins.",
    )


class Team(Strict):
    """A team: tags for its shares, and the shares themselves."""

    name: Name
    tags: Tags = Field(default={}, description="Added to this team's shares.")
    max_priority: int | None = Field(
        default=None, ge=0, le=MAX_PRIORITY, description="The highest priority it may submit."
    )
    budget: Budget | None = Field(
        default=None, description="Instance-hours per UTC calendar period, per type."
    )
    shares: list[Share] = Field(default=[])


class ConfigFile(Strict):
    """One configuration file; lists from every file are merged, platform appears once."""

    model_config = ConfigDict(title="quotactl configuration file")

    platform: Platform | None = Field(default=None, description="Exactly once across all files.")
    environments: list[Environment] = Field(default=[])
    queues: list[Queue] = Field(default=[])
    teams: list[Team] = Field(default=[])
    rules: list[RuleEntry] = Field(
        default=[],
        description="The organisation's rules: each a name, a level (advisory, soft, hard) "
        "and a check with its parameters.",
    )


class Config(Strict):
    """Every file merged and checked: what ``LoadedConfig.model`` holds."""

    platform: Platform
    environments: list[Environment]
    queues: list[Queue]
    teams: list[Team]
    rules: list[RuleEntry] = Field(default=[])


MODELS_BY_PATH: dict[tuple[str, ...], type[BaseModel]] = {
    (): ConfigFile,
    ("platform",): Platform,
    ("environments",): Environment,
    ("queues",): Queue,
    ("queues", "runnable_timeout"): RunnableTimeout,
    ("teams",): Team,
    ("teams", "shares"): Share,
    ("teams", "shares", "schedule"): Window,
    ("teams", "shares", "schedule", "when"): When,
    ("teams", "budget"): Budget,
    ("queues", "aging"): Aging,
}
"""Which model a mapping is, by its key path with list indices removed (for messages)."""

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one configuration file, for editors (yaml-language-server)."""
    schema = ConfigFile.model_json_schema()
    return {"$schema": SCHEMA_DIALECT, **schema}
