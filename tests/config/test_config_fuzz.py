"""Whatever bytes a config holds, loading it ends in success or a clean ConfigError.

"Clean" means: at least one error, each with a file that was loaded and a position inside it,
and nothing else ever raised (no KeyError, RecursionError, ValueError from YAML or pydantic).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.config import load_config
from quotactl.errors import ConfigError

DEMO = Path(__file__).resolve().parents[2] / "configs" / "demo"
DEMO_FILES = {p.relative_to(DEMO).as_posix(): p.read_text() for p in sorted(DEMO.rglob("*.yaml"))}
KEYS = [
    "platform", "environments", "queues", "teams", "name", "region", "account_id", "tags",
    "capacity", "enabled", "environment", "priority", "runnable_timeout", "seconds", "reasons",
    "shares", "queue", "sharing", "borrow_limit", "in_share_preemption", "ml.p5.48xlarge",
    "<<", "on", "training", "gpu-pool",
]  # fmt: skip
YAML_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["reserve", "lend", "lend_and_borrow", "unlimited", "ml.g5.12xlarge"]),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=5),
    ),
    max_leaves=25,
)


def _load(files: dict[str, str | bytes]) -> None:
    """Write ``files`` to a fresh directory, load it, and check the outcome is clean."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        lines: dict[str, int] = {}
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
            path.write_bytes(data)
            text = data.decode("utf-8", "replace")
            lines[str(path)] = len(YAML_LINE_BREAK.split(text))
        try:
            load_config([root])
        except ConfigError as error:
            _check_clean(error, lines)


def _check_clean(error: ConfigError, lines: dict[str, int]) -> None:
    assert error.code == "config-invalid"
    assert any(d.severity == "error" for d in error.diagnostics)
    for d in error.diagnostics:
        assert d.file in lines, d
        assert 1 <= d.line <= lines[d.file], d
        assert d.column >= 1, d
        assert d.message, d


@FUZZ
@given(documents)
def test_random_yaml_documents(document: Any) -> None:
    _load({"config.yaml": yaml.safe_dump(document)})


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_random_text(text: str) -> None:
    _load({"config.yaml": text})


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes(data: bytes) -> None:
    _load({"config.yaml": data})


@st.composite
def _text_mutation(draw: st.DrawFn) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = dict(DEMO_FILES)
    name = draw(st.sampled_from(sorted(files)))
    lines = str(files[name]).splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "indent", "dedent", "edit", "swap"]))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "indent":
            lines[i] = draw(st.sampled_from([" ", "  ", "\t"])) + lines[i]
        elif op == "dedent":
            lines[i] = lines[i][min(2, len(lines[i]) - len(lines[i].lstrip(" "))) :]
        elif op == "edit":
            at = draw(st.integers(0, len(lines[i])))
            cut = draw(st.integers(0, 3))
            new = draw(st.text(alphabet=":-{}[]&*!|>#'\" \n0123456789abcyes", max_size=4))
            lines[i] = lines[i][:at] + new + lines[i][at + cut :]
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
    files[name] = "".join(lines)
    return files


@FUZZ
@given(_text_mutation())
def test_mutated_demo_text(files: dict[str, str | bytes]) -> None:
    _load(files)


@st.composite
def _value_mutation(draw: st.DrawFn) -> dict[str, str | bytes]:
    """Replace, delete or add one value somewhere in one parsed demo file."""
    files: dict[str, str | bytes] = dict(DEMO_FILES)
    name = draw(st.sampled_from(sorted(files)))
    data = yaml.safe_load(str(files[name]))
    node: Any = data
    while isinstance(node, dict | list) and node and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        if not isinstance(node[key], dict | list):
            break
        node = node[key]
    if isinstance(node, dict) and node:
        key = draw(st.sampled_from(sorted(node)))
        op = draw(st.sampled_from(["replace", "delete", "add"]))
        if op == "replace":
            node[key] = draw(documents)
        elif op == "delete":
            del node[key]
        else:
            node[draw(st.sampled_from(KEYS))] = draw(documents)
    elif isinstance(node, list) and node:
        node[draw(st.integers(0, len(node) - 1))] = draw(documents)
    files[name] = yaml.safe_dump(data)
    return files


@FUZZ
@given(_value_mutation())
def test_mutated_demo_values(files: dict[str, str | bytes]) -> None:
    _load(files)
