"""The IAM policy document quotactl's commands need, as a result to draw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PolicyDocument:
    """An IAM policy document (``Version`` and ``Statement``), printed as it is."""

    document: dict[str, Any]
