"""The config language's building blocks: names, counts, capacity maps, tags, strict models.

Shared by the resources' models (``quotactl.config.schema``) and the rules' models
(``quotactl.config.rules_schema``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

INT32_MAX = 2**31 - 1
"""AWS's integer fields are 32-bit; larger numbers are typos, never capacity."""

NAME_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"
REGION_PATTERN = r"^[a-z]{2}(-[a-z]+)+-[0-9]+$"
ACCOUNT_PATTERN = r"^[0-9]{12}$"
MAX_CAPACITY_ENTRIES = 5

Name = Annotated[
    str,
    StringConstraints(pattern=NAME_PATTERN),
    Field(description="1-128 letters, digits, '-' or '_' (AWS's naming rule)."),
]
Count = Annotated[int, Field(ge=1, le=INT32_MAX)]
Capacity = Annotated[
    dict[str, Count],
    Field(
        min_length=1,
        max_length=MAX_CAPACITY_ENTRIES,
        description="Instance counts by SageMaker training instance type, 1 to 5 types, "
        "e.g. {ml.p5.48xlarge: 8}.",
    ),
]
TagKey = Annotated[str, StringConstraints(min_length=1, max_length=128)]
TagValue = Annotated[str, StringConstraints(max_length=256)]
Tags = Annotated[
    dict[TagKey, TagValue],
    Field(max_length=49, description="AWS tags; keys up to 128 characters, values up to 256."),
]


class Strict(BaseModel):
    """Unknown keys forbidden, no coercion, immutable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
