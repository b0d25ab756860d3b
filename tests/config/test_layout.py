"""``quotactl fmt``'s layout: on any config, however it is written, formatting keeps the data,
every comment and validate's verdict, and formatting twice changes nothing more."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.config import load_config
from quotactl.config.layout import format_text
from quotactl.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
CONFIG_FILES = sorted((REPO / "configs").rglob("*.yaml"))
COMMENT = re.compile(r"#\s*(c\d+)\b")
NAMES = ["nlp", "vision", "gpu-pool", "training", "on", "yes", "123", "2e-5", "null", "a_b"]
TYPES = ["ml.p5.48xlarge", "ml.g5.12xlarge", "ml.p4d.24xlarge"]
REASONS = [
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED",
    "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE",
    "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY",
]
SMALL = {"capacity", "tags", "reasons"}


def configs() -> st.SearchStrategy[dict[str, Any]]:
    """Config documents: every record the schema has, with values valid or not."""
    name = st.sampled_from(NAMES)
    capacity = st.dictionaries(st.sampled_from(TYPES), st.integers(1, 64), min_size=1)
    tags = st.dictionaries(st.sampled_from(["owner", "tier", "cost-center"]), name, max_size=3)
    platform = st.fixed_dictionaries(
        {"name": name, "region": st.sampled_from(["us-east-1", "eu-west-1"])},
        optional={"account_id": st.sampled_from(["123456789012", "000000000000"]), "tags": tags},
    )
    environment = st.fixed_dictionaries({"name": name, "capacity": capacity})
    timeout = st.fixed_dictionaries(
        {
            "seconds": st.integers(600, 86400),
            "reasons": st.lists(st.sampled_from(REASONS), min_size=1, max_size=3, unique=True),
        }
    )
    queue = st.fixed_dictionaries(
        {"name": name, "environment": name},
        optional={"priority": st.integers(0, 1000), "runnable_timeout": timeout},
    )
    share = st.fixed_dictionaries(
        {"queue": name, "capacity": capacity, "sharing": st.sampled_from(["lend", "reserve"])},
        optional={
            "name": name,
            "borrow_limit": st.one_of(st.integers(0, 200), st.just("unlimited")),
            "in_share_preemption": st.booleans(),
        },
    )
    team = st.fixed_dictionaries(
        {"name": name}, optional={"tags": tags, "shares": st.lists(share, max_size=2)}
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "platform": platform,
            "environments": st.lists(environment, min_size=1, max_size=2),
            "queues": st.lists(queue, min_size=1, max_size=2),
            "teams": st.lists(team, min_size=1, max_size=2),
        },
    ).filter(bool)


class Writer:
    """Writes a document as YAML the way people do: keys in any order, flow or block, quoted
    or not, with comments above keys and at the ends of lines (each one unique: ``# cN``)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.comments = 0

    def comment(self) -> str:
        self.comments += 1
        return f"# c{self.comments}"

    def scalar(self, value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        text = str(value)
        plain_ok = yaml.safe_load(f"k: {text}") == {"k": text}
        style = self.draw(
            st.sampled_from(["plain", "single", "double"] if plain_ok else ["single", "double"])
        )
        if style == "plain":
            return text
        return f"'{text}'" if style == "single" else json.dumps(text)

    def mapping(self, data: dict[str, Any], indent: int, *, first_dash: bool = False) -> list[str]:
        keys = self.draw(st.permutations(list(data)))
        lines: list[str] = []
        pad = " " * indent
        for index, key in enumerate(keys):
            lead = first_dash and index == 0
            if not lead and self.draw(st.booleans()):
                lines.append(pad + self.comment())
            lines += self.pair(key, data[key], indent)
        if first_dash:
            lines[0] = " " * (indent - 2) + "- " + lines[0][indent:]
        return lines

    def pair(self, key: str, value: Any, indent: int) -> list[str]:
        pad = " " * indent
        eol = f"  {self.comment()}" if self.draw(st.booleans()) else ""
        if (
            isinstance(value, dict | list)
            and (not value or key in SMALL)
            and self.draw(st.booleans())
        ):
            return [f"{pad}{key}: {self.flow(value)}{eol}"]
        if isinstance(value, dict):
            return [f"{pad}{key}:{eol}", *self.mapping(value, indent + 2)]
        if isinstance(value, list):
            lines = [f"{pad}{key}:{eol}"]
            for item in value:
                if isinstance(item, dict):
                    lines += self.mapping(item, indent + 4, first_dash=True)
                else:
                    lines.append(f"{pad}  - {self.scalar(item)}")
            return lines
        return [f"{pad}{key}: {self.scalar(value)}{eol}"]

    def flow(self, value: dict[str, Any] | list[Any]) -> str:
        if isinstance(value, dict):
            return "{" + ", ".join(f"{k}: {self.scalar(v)}" for k, v in value.items()) + "}"
        return "[" + ", ".join(self.scalar(v) for v in value) + "]"


@st.composite
def written_configs(draw: st.DrawFn) -> tuple[str, int]:
    """A config's text, and how many comments it holds."""
    writer = Writer(draw)
    lines = [writer.comment()] if draw(st.booleans()) else []
    document = draw(configs())
    for key in draw(st.permutations(list(document))):
        lines += writer.pair(key, document[key], 0)
    return "\n".join(lines) + "\n", writer.comments


POSITION = re.compile(r":\d+:\d+\b")


def verdict(path: Path, text: str) -> tuple[bool, list[str]]:
    """validate's result on ``text`` as the file ``path``: valid or not, and the messages of
    its findings (positions aside: formatting moves lines)."""
    path.write_text(text)
    valid = True
    try:
        found = load_config([path]).diagnostics
    except ConfigError as error:
        valid, found = False, error.diagnostics
    return valid, sorted(POSITION.sub("", d.message) for d in found)


LAYOUT = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@LAYOUT
@given(written_configs())
def test_fmt_keeps_data_comments_and_verdict_and_is_idempotent(
    tmp_path_factory: pytest.TempPathFactory, written: tuple[str, int]
) -> None:
    text, comments = written
    formatted = format_text(text, "config.yaml")
    assert format_text(formatted, "config.yaml") == formatted
    assert yaml.safe_load(formatted) == yaml.safe_load(text)
    assert sorted(COMMENT.findall(formatted)) == sorted(f"c{n}" for n in range(1, comments + 1))
    path = tmp_path_factory.mktemp("fmt") / "config.yaml"
    assert verdict(path, text) == verdict(path, formatted)


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_checked_in_config_is_already_formatted(path: Path) -> None:
    text = path.read_text()
    assert format_text(text, str(path)) == text


def test_fmt_orders_keys_as_the_schema_and_moves_comments_with_them() -> None:
    text = (
        "queues:\n"
        "  - environment: gpu  # the pool\n"
        "    # above priority\n"
        "    priority: 10\n"
        "    name: 'training'\n"
        "platform:\n"
        "  account_id: '123456789012'\n"
        "  region: us-east-1\n"
        '  name: "demo"\n'
        "  tags:\n"
        "    owner: ml\n"
    )
    assert format_text(text, "f.yaml") == (
        "platform:\n"
        "  name: demo\n"
        "  region: us-east-1\n"
        '  account_id: "123456789012"\n'
        "  tags: {owner: ml}\n"
        "queues:\n"
        "  - name: training\n"
        "    environment: gpu  # the pool\n"
        "    # above priority\n"
        "    priority: 10\n"
    )


def test_fmt_quotes_only_what_yaml_would_misread_and_never_unquotes_a_plain_scalar() -> None:
    text = "teams:\n  - name: 'on'\n    tags: {a: '2e-5', b: 'x', c: yes}\n"
    assert format_text(text, "f.yaml") == (
        'teams:\n  - name: "on"\n    tags: {a: "2e-5", b: x, c: yes}\n'
    )


def test_fmt_keeps_anchors_aliases_and_merge_keys() -> None:
    text = (
        "environments:\n"
        "  - name: a\n"
        "    capacity: &pool {ml.p5.48xlarge: 4}\n"
        "  - capacity: *pool\n"
        "    name: b\n"
        "teams:\n"
        "  - &base\n"
        "    name: t\n"
        "  - <<: *base\n"
        "    name: u\n"
    )
    formatted = format_text(text, "f.yaml")
    assert "&pool" in formatted
    assert "*pool" in formatted
    assert "<<: *base" in formatted
    assert yaml.safe_load(formatted) == yaml.safe_load(text)
    assert format_text(formatted, "f.yaml") == formatted


def test_a_long_small_map_is_written_in_block_style() -> None:
    reasons = ", ".join(REASONS)
    text = f"queues:\n  - name: q\n    runnable_timeout: {{seconds: 600, reasons: [{reasons}]}}\n"
    formatted = format_text(text, "f.yaml")
    assert (
        "    runnable_timeout:\n      seconds: 600\n      reasons:\n        - MISCONF" in formatted
    )
    assert max(len(line) for line in formatted.splitlines()) <= 100


def test_text_that_is_not_yaml_is_a_config_error_at_its_position() -> None:
    with pytest.raises(ConfigError) as raised:
        format_text("teams:\n  - name: [unclosed\n", "bad.yaml")
    [diagnostic] = raised.value.diagnostics
    assert diagnostic.file == "bad.yaml"
    assert diagnostic.line >= 2
