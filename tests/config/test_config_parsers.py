"""libyaml's parser and PyYAML's pure-Python one give the same data, positions and messages.

Config files are read by libyaml's C parser when PyYAML has it (``parse_with_libyaml``) and
by ``yaml.SafeLoader`` otherwise, or when the C parser rejects a file. A user must not be able
to tell which one ran: every value's FILE:LINE:COL, every duplicate-key and non-string-key
finding, every message of ``validate`` is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.config import loaders, source
from quotactl.config.source import ParsedFile, parse_with_libyaml, parse_yaml

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "invalid"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
FILES = sorted(
    [*CORPUS.rglob("*.yaml"), *CORPUS.rglob("*.yml"), *(ROOT / "configs").rglob("*.yaml")]
)
needs_libyaml = pytest.mark.skipif(source.FAST_LOADER is None, reason="PyYAML without libyaml")


def _view(parsed: ParsedFile) -> tuple[object, ...]:
    """Everything a caller can read off a parse."""
    s = parsed.source
    return (parsed.data, s.keys, s.values, s.plain_text, parsed.diagnostics)


def _text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        return None  # not UTF-8: reported before any parser runs


@needs_libyaml
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_both_parsers_read_each_checked_in_file_the_same(path: Path) -> None:
    text = _text(path)
    if text is None:
        return
    python = parse_yaml(text, path.name, libyaml=False)
    fast = parse_with_libyaml(text, path.name)
    if fast is not None:
        assert _view(fast) == _view(python)
    assert _view(parse_yaml(text, path.name)) == _view(python)


@needs_libyaml
def test_libyaml_reads_the_valid_configs_and_most_of_the_corpus() -> None:
    """The fast path is the one taken, not a fallback for everything."""
    texts = [t for p in FILES if (t := _text(p)) is not None]
    read = [t for t in texts if parse_with_libyaml(t, "f.yaml") is not None]
    assert len(read) >= 0.8 * len(texts)
    demo = sorted((ROOT / "configs" / "demo").rglob("*.yaml"))
    assert all(parse_with_libyaml(p.read_text(), p.name) is not None for p in demo)


@needs_libyaml
@pytest.mark.parametrize("case", CASES)
def test_validate_prints_the_same_with_either_parser(
    case: str, cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(CORPUS / case)
    fast = cli("validate", ".")
    monkeypatch.setattr(source, "FAST_LOADER", None)
    python = cli("validate", ".")
    assert (fast.exit_code, fast.stdout, fast.stderr) == (
        python.exit_code,
        python.stdout,
        python.stderr,
    )
    assert fast.exit_code == 1


TOKENS = [
    *"ab:-{}[],&*!|>#'\"? \n\t\r01.%<=@`~\\",
    *["yes", "null", "1e3", "0x1F", "2024-01-01", "<<", "\u00e9", "\u2028", "\x85", "\ufeff"],
]
YAMLISH = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)


EDITS = [
    *["&x ", "*x", "<<: *x\n", "'q'", '"d\\n"', "# c", "\r\n", "\u00e9", "\U0001f600", "\u2028"],
    *["\x85", " ", "  ", "- ", ": ", "\n", "{", "}", "[", "]", ",", "yes", "~", "1_000", ".inf"],
    *["|\n  ", ">-\n  ", "---\n", "...\n", "%YAML 1.1\n", "\\", '"', "'", "a: &y {b: 1}\n"],
]


@st.composite
def _nested(draw: st.DrawFn) -> str:
    depth = draw(st.integers(0, 3000))
    return draw(st.sampled_from(["[" * depth, "- " * depth + "x", "{a: " * depth]))


@st.composite
def _edited(draw: st.DrawFn) -> str:
    """A checked-in file with a few fragments typed into it."""
    text = _text(draw(st.sampled_from(FILES))) or ""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 2))
        text = text[:at] + draw(st.sampled_from(EDITS)) + text[at + cut :]
    return text


@needs_libyaml
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(YAMLISH, _nested(), _edited()))
def test_whatever_libyaml_reads_the_pure_python_parser_reads_the_same(text: str) -> None:
    fast = parse_with_libyaml(text, "f.yaml")
    if fast is not None:
        assert _view(fast) == _view(parse_yaml(text, "f.yaml", libyaml=False))


@needs_libyaml
@pytest.mark.parametrize(
    "text",
    [
        "[" * 200_000,  # libyaml's own composer would crash the process here
        "- " * 100_000 + "x",
        "a: \ud800\n",  # a lone surrogate cannot be handed to libyaml as UTF-8
    ],
    ids=["deep-flow", "deep-block", "surrogate"],
)
def test_hostile_input_falls_back_to_the_pure_python_diagnostics(text: str) -> None:
    parsed = parse_yaml(text, "f.yaml")
    assert parsed.data is None
    assert parsed.diagnostics
    assert _view(parsed) == _view(parse_yaml(text, "f.yaml", libyaml=False))


def test_without_libyaml_the_pure_python_parser_reads_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(source, "FAST_LOADER", None)
    assert parse_with_libyaml("a: 1\n", "f.yaml") is None
    parsed = parse_yaml("a: 1\na: 2\n", "f.yaml")
    assert parsed.data == {"a": 2}
    assert [d.message for d in parsed.diagnostics] == [
        "duplicate key 'a' in this mapping (first at line 1, column 1)"
    ]


def _depth(value: object) -> int:
    """How many collections nest in ``value`` (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text("ab-:[{ ", max_size=4))
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abc", max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_DATA, st.sampled_from([None, True, False]))
def test_nesting_bound_is_never_below_how_deep_the_text_nests(
    data: object, flow: bool | None
) -> None:
    """libyaml's composer is used only under this bound: it must hold for any YAML text."""
    text = yaml.safe_dump(data, default_flow_style=flow)
    assert _depth(yaml.safe_load(text)) <= loaders.nesting_bound(text)


def _with_pyyaml_composer(text: str) -> ParsedFile | None:
    saved = source.COMPOSING_LOADER
    source.COMPOSING_LOADER = None
    try:
        return parse_with_libyaml(text, "f.yaml")
    finally:
        source.COMPOSING_LOADER = saved


@needs_libyaml
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(YAMLISH, _nested(), _edited()))
def test_libyamls_composer_and_pyyamls_give_the_same_nodes(text: str) -> None:
    fast = parse_with_libyaml(text, "f.yaml")
    other = _with_pyyaml_composer(text)
    assert (fast is None) == (other is None)
    if fast is not None and other is not None:
        assert _view(fast) == _view(other)


@needs_libyaml
def test_the_checked_in_configs_take_libyamls_composer_and_deep_text_does_not() -> None:
    limit = loaders.LIBYAML_COMPOSER_MAX_NESTING
    texts = [t for p in sorted((ROOT / "configs").rglob("*.yaml")) if (t := _text(p))]
    assert texts
    assert all(loaders.nesting_bound(t) <= limit for t in texts)
    for text in texts:
        fast, other = parse_with_libyaml(text, "f.yaml"), _with_pyyaml_composer(text)
        assert (fast is None) == (other is None)
        if fast is not None and other is not None:
            assert _view(fast) == _view(other)
    deep = "[" * 20_000 + "]" * 20_000  # would overflow the C stack in libyaml's composer
    assert loaders.nesting_bound(deep) > limit
    parsed = parse_yaml(deep, "f.yaml")
    assert [d.message for d in parsed.diagnostics] == [
        "YAML nested too deeply (a config nests at most 64 levels)"
    ]


_NUMBER_WORDS = st.one_of(
    st.integers(-(10**6), 10**30).map(str),
    st.sampled_from(
        [
            "0",
            "00",
            "010",
            "0777",
            "08",
            "0o17",
            "0x1F",
            "0b101",
            "1_000",
            "+5",
            "-0",
            "1:30",
            "1e3",
        ]
    ),
    st.sampled_from(["\u0663", "\u00b2", "1.5", ".inf", "~", "on", "9" * 5000]),
    st.from_regex(r"[0-9_:+.-]{1,8}", fullmatch=True),
)


@given(st.lists(_NUMBER_WORDS, min_size=1, max_size=6), st.booleans())
def test_numbers_and_other_plain_scalars_read_as_pyyaml_reads_them(
    words: list[str], libyaml: bool
) -> None:
    """Strings and counts skip PyYAML's constructor; what they become must not change."""
    text = "".join(f"k{index}: {word}\n" for index, word in enumerate(words))
    parsed = parse_yaml(text, "numbers.yaml", libyaml=libyaml)
    try:
        expected = yaml.safe_load(text)
    except yaml.YAMLError:  # "k0: 1:" and the like are not YAML: reported, not read
        assert parsed.diagnostics
        return
    except ValueError:  # a number too long for int(): a diagnostic instead
        assert [d.message for d in parsed.diagnostics if "too large" in d.message]
        return
    assert parsed.diagnostics == []
    assert isinstance(parsed.data, dict)
    assert parsed.data == expected
    assert [type(v) for v in parsed.data.values()] == [type(v) for v in expected.values()]
