"""The JSON Schema editors use: checked in, never drifting, and agreeing with the loader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import jsonschema
import pytest
import yaml

from quotactl.config import json_schema

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = REPO_ROOT / "configs" / "quotactl.schema.json"
EXAMPLES = sorted(
    p for d in ("demo", "examples") for p in (REPO_ROOT / "configs" / d).rglob("*.yaml")
)
SCHEMA_COMMENT = "# yaml-language-server: $schema="


def test_checked_in_schema_is_what_quotactl_schema_prints(cli: Callable[..., CliResult]) -> None:
    result = cli("schema")
    assert result.exit_code == 0
    # the same document (pydantic releases differ in spelling a bound 0 or 0.0)
    assert json.loads(result.stdout) == json.loads(SCHEMA_FILE.read_text()), (
        "stale schema: run `quotactl schema > configs/quotactl.schema.json`"
    )


def test_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json_schema())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_example_points_editors_at_the_checked_in_schema(path: Path) -> None:
    first_line = path.read_text().splitlines()[0]
    assert first_line.startswith(SCHEMA_COMMENT)
    target = (path.parent / first_line.removeprefix(SCHEMA_COMMENT)).resolve()
    assert target == SCHEMA_FILE


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_example_passes_the_schema(path: Path) -> None:
    jsonschema.validate(yaml.safe_load(path.read_text()), json.loads(SCHEMA_FILE.read_text()))


@pytest.mark.parametrize(
    "document",
    [
        {"platform": {"name": "demo", "region": "us-east-1", "colour": "blue"}},
        {"queues": [{"name": "q", "environment": "e", "priority": 1001}]},
        {"teams": [{"name": "t", "shares": [{"queue": "q", "capacity": {"ml.m5.large": 1}}]}]},
        {"teams": [{"name": "bad name"}]},
        {"environments": [{"name": "e", "capacity": {}}]},
    ],
)
def test_schema_rejects_what_the_loader_rejects(document: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, json_schema())
