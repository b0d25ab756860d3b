"""YAML text -> plain Python data, remembering where every key and value was written.

PyYAML's ``safe_load`` forgets positions and silently keeps the last of two equal keys, so
this module composes the node graph itself and builds the data from it: each key and value
gets a ``FILE:LINE:COL`` position, duplicate keys and non-string keys become diagnostics, and
aliases are expanded with a guard against cycles and "billion laughs".

Two parsers, one result. When PyYAML was built with libyaml, its C parser reads the text
(about ten times faster than PyYAML's pure-Python scanner, which was most of the time of
``validate`` on a large config), and PyYAML's own composer and safe constructor turn its
events into nodes; libyaml's composer (``CSafeLoader``) does that too, faster, for text that
cannot nest more than ``LIBYAML_COMPOSER_MAX_NESTING`` levels (``loaders.nesting_bound``): it
recurses on the C stack and would crash the process on deeply nested input, where PyYAML's
raises RecursionError. Str scalars are taken as they are, without the constructor. The two
parsers word their errors differently, so a file the C parser rejects is parsed again by
``yaml.SafeLoader``, whose messages and positions are the ones reported; so is a file with
one of the few constructs on which they disagree (``loaders.LIBYAML_DIFFERS``). Otherwise both give
the same nodes and positions (``tests/config/test_config_parsers.py`` holds them equal, on
the checked-in configs and on fuzzed text). Without libyaml, ``yaml.SafeLoader`` reads every
file.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

import yaml

from quotactl.config.loaders import (
    LIBYAML_COMPOSER_MAX_NESTING,
    LIBYAML_DIFFERS,
    Loader,
    libyaml_composer_loader,
    libyaml_loader,
    nesting_bound,
)
from quotactl.errors import Diagnostic, Severity

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

YamlPath = tuple[str | int, ...]
"""Where a value sits in a document: mapping keys and list indices from the top."""

MAX_NODES = 100_000
"""Upper bound on values after alias expansion; real configs have a few hundred."""
MAX_DEPTH = 64
"""Upper bound on nesting; the config language itself nests six levels deep."""

_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"


class Position(NamedTuple):
    """A 1-based line and column (a tuple: a large config makes tens of thousands)."""

    line: int
    column: int

    @classmethod
    def of(cls, mark: yaml.Mark) -> Position:
        return cls(mark.line + 1, mark.column + 1)


START = Position(1, 1)


@dataclass
class SourceMap:
    """The positions of one file's keys and values, addressed by ``YamlPath``."""

    file: str
    keys: dict[YamlPath, Position] = field(default_factory=dict)
    values: dict[YamlPath, Position] = field(default_factory=dict)
    plain_text: dict[YamlPath, str] = field(default_factory=dict)
    """The source text of unquoted scalars that YAML did not read as strings (``on``, ``1e3``)."""

    def value_position(self, path: Sequence[str | int]) -> Position:
        """Where the value at ``path`` starts, else where its nearest known parent starts."""
        for end in range(len(path), 0, -1):
            found = self.values.get(tuple(path[:end]))
            if found is not None:
                return found
        return START

    def key_position(self, path: Sequence[str | int]) -> Position:
        """Where the key naming ``path`` is written (the value's position for list items)."""
        return self.keys.get(tuple(path)) or self.value_position(path)

    def diagnostic(
        self,
        path: Sequence[str | int],
        message: str,
        *,
        at: Literal["key", "value"] = "value",
        severity: Severity = "error",
    ) -> Diagnostic:
        where = self.key_position(path) if at == "key" else self.value_position(path)
        return Diagnostic(self.file, where.line, where.column, message, severity)

    def cite(self, path: Sequence[str | int], *, at: Literal["key", "value"] = "value") -> str:
        """``FILE:LINE:COL`` of ``path``, for messages that point at a second place."""
        where = self.key_position(path) if at == "key" else self.value_position(path)
        return f"{self.file}:{where.line}:{where.column}"


@dataclass
class ParsedFile:
    data: object
    source: SourceMap
    diagnostics: list[Diagnostic]


FAST_LOADER = libyaml_loader()
"""The libyaml-backed loader, or None when PyYAML was built without libyaml."""
COMPOSING_LOADER = libyaml_composer_loader()
"""``yaml.CSafeLoader`` (libyaml's composer as well), for text that cannot nest deeply."""


def parse_yaml(
    text: str, file: str, *, expected: str = "a mapping of config keys", libyaml: bool = True
) -> ParsedFile:
    """Parse one file; YAML problems come back as diagnostics, never as exceptions.

    ``expected`` says what an empty file should have held. With ``libyaml`` (and libyaml
    installed) the C parser reads it, and a file it rejects is parsed again by the pure-Python
    one, whose diagnostics are reported.
    """
    with _collector_paused():
        if libyaml and (parsed := parse_with_libyaml(text, file)) is not None:
            return parsed
        return _parse_python(text, file, expected)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while one file is parsed.

    Parsing allocates a node, a mark and a position per value and frees none of them until
    the end, so the collector would otherwise run dozens of times over a growing heap
    (a quarter of the parse time of a large config) to find nothing; it resumes after.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def parse_with_libyaml(text: str, file: str) -> ParsedFile | None:
    """The file read by libyaml's parser, or None if it did not read cleanly (or is absent)."""
    if FAST_LOADER is None or LIBYAML_DIFFERS.search(text) is not None:
        return None
    source = SourceMap(file)
    shallow = COMPOSING_LOADER is not None and nesting_bound(text) <= LIBYAML_COMPOSER_MAX_NESTING
    try:
        loader = COMPOSING_LOADER(text) if shallow and COMPOSING_LOADER else FAST_LOADER(text)
    except (yaml.YAMLError, ValueError):  # ValueError: lone surrogates cannot be UTF-8
        return None
    try:
        node = loader.get_single_node()
        if node is None:
            return None  # an empty file: let the other path word it
        builder = _Builder(loader, source, libyaml=True)
        return ParsedFile(builder.build(node, ()), source, builder.diagnostics)
    except (yaml.YAMLError, ValueError, RecursionError, _TooLarge, _Differs):
        return None
    finally:
        loader.dispose()


def _parse_python(text: str, file: str, expected: str) -> ParsedFile:
    source = SourceMap(file)
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:
        return ParsedFile(None, source, [_reader_error(exc, text, file)])
    try:
        node = loader.get_single_node()
        if node is None:
            error = source.diagnostic((), f"file is empty: expected {expected}")
            return ParsedFile(None, source, [error])
        builder = _Builder(loader, source)
        data = builder.build(node, ())
        return ParsedFile(data, source, builder.diagnostics)
    except yaml.MarkedYAMLError as exc:
        return ParsedFile(None, source, [_syntax_error(exc, text, file)])
    except yaml.reader.ReaderError as exc:
        return ParsedFile(None, source, [_reader_error(exc, text, file)])
    except _TooLarge as exc:
        return ParsedFile(None, source, [source.diagnostic(exc.path, str(exc))])
    except RecursionError:  # PyYAML's composer recurses once per nesting level
        where = Position.of(loader.get_mark())
        message = f"YAML nested too deeply (a config nests at most {MAX_DEPTH} levels)"
        return ParsedFile(None, source, [Diagnostic(file, where.line, where.column, message)])
    finally:
        loader.dispose()


def _reader_error(exc: yaml.reader.ReaderError, text: str, file: str) -> Diagnostic:
    line, column = _line_column(text, exc.position)
    message = f"character {chr(exc.character)!r} is not allowed in YAML ({exc.reason})"
    return Diagnostic(file, line, column, message)


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, file: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    where = Position.of(mark) if mark is not None else START
    problem = exc.problem or "invalid YAML"
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        problem = "tab character: YAML indentation must use spaces"
    elif "expected a single document" in (exc.context or ""):
        return Diagnostic(
            file,
            where.line,
            where.column,
            "a second YAML document (---): a config file holds exactly one",
        )
    message = f"YAML syntax error: {problem}"
    if exc.context and exc.context_mark is not None and exc.context_mark is not mark:
        context = Position.of(exc.context_mark)
        message += f" ({exc.context} at line {context.line}, column {context.column})"
    return Diagnostic(file, where.line, where.column, message)


def _line_column(text: str, index: int) -> tuple[int, int]:
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


class _TooLarge(Exception):
    def __init__(self, path: YamlPath, message: str) -> None:
        super().__init__(message)
        self.path = path


class _Differs(Exception):
    """libyaml placed a node elsewhere than PyYAML would: read the file with PyYAML."""


class _Builder:
    """Walks composed nodes into dicts, lists and scalars, recording positions."""

    def __init__(self, loader: Loader, source: SourceMap, *, libyaml: bool = False) -> None:
        self.loader = loader
        self.libyaml = libyaml
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self.count = 0
        self.active: set[int] = set()
        self.flattened: set[int] = set()

    def build(self, node: yaml.Node, path: YamlPath) -> object:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooLarge(path, f"document expands to more than {MAX_NODES} values (aliases?)")
        if len(path) > MAX_DEPTH:
            raise _TooLarge(
                path, f"YAML nested too deeply (a config nests at most {MAX_DEPTH} levels)"
            )
        mark = node.start_mark
        self.source.values[path] = Position(mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.ScalarNode):  # no children: never part of a cycle
            return self._scalar(node, path)
        if id(node) in self.active:
            self._error(path, "recursive YAML alias: a value cannot contain itself")
            return None
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path)
            return self._sequence(node, path)
        finally:
            self.active.discard(id(node))

    def _mapping(self, node: yaml.MappingNode, path: YamlPath) -> object:
        if node.tag != _MAP_TAG:
            self._error(path, f"unsupported YAML tag {node.tag!r}: expected a plain mapping")
            return None
        items = node.value
        plain = {key.value for key, _ in items if key.tag == _STR_TAG and type(key.value) is str}
        if len(plain) < len(items):  # a merge key, a key that is no string, a repeated key
            return self._irregular_mapping(node, path)
        return self._entries([(key.value, key, value) for key, value in items], path)

    def _irregular_mapping(self, node: yaml.MappingNode, path: YamlPath) -> object:
        """A mapping with a merge key, a key that is not a plain string, or a repeated key."""
        if id(node) not in self.flattened:
            self.flattened.add(id(node))
            self._report_duplicate_keys(node)
            # Merge keys (``<<: *defaults``) are expanded by PyYAML; explicit keys win.
            self.loader.flatten_mapping(node)
        pairs: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _STR_TAG and isinstance(key_node, yaml.ScalarNode):
                key: str | None = key_node.value
            else:
                key = self._key(key_node)
            if key is not None:
                pairs.pop(key, None)  # the last one wins, as in PyYAML: keep its order too
                pairs[key] = (key_node, value_node)
        return self._entries([(key, *nodes) for key, nodes in pairs.items()], path)

    def _entries(
        self, entries: Iterable[tuple[str, yaml.Node, yaml.Node]], path: YamlPath
    ) -> dict[str, object]:
        """A mapping's value from its (key, key node, value node) entries, positions noted."""
        keys = self.source.keys
        result: dict[str, object] = {}
        for key, key_node, value_node in entries:
            child = (*path, key)
            mark = key_node.start_mark
            keys[child] = Position(mark.line + 1, mark.column + 1)
            result[key] = self.build(value_node, child)
        return result

    def _sequence(self, node: yaml.Node, path: YamlPath) -> object:
        if node.tag != _SEQ_TAG:
            self._error(path, f"unsupported YAML tag {node.tag!r}: expected a plain list")
            return None
        return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]

    def _scalar(self, node: yaml.ScalarNode, path: YamlPath) -> object:
        if node.tag == _STR_TAG:
            if self.libyaml and not node.value and not node.style:
                # An omitted value (``key:``, ``{key: }``): libyaml puts it at the next token,
                # PyYAML right after the indicator.
                raise _Differs
            return node.value  # what SafeConstructor makes of a str scalar, without its cost
        if self.libyaml and not node.value and not node.style:
            raise _Differs
        try:
            text = node.value
            if node.tag == _INT_TAG and text.isdigit() and text.isascii() and text[0] != "0":
                value: object = int(text)  # a count, the commonest other value: as PyYAML reads it
            else:
                value = self.loader.construct_object(node)
        except yaml.constructor.ConstructorError as exc:
            self._error(path, f"unsupported YAML value: {exc.problem}")
            return None
        except ValueError:  # int('9' * 5000), bad dates: PyYAML lets Python's error escape
            text = str(node.value)
            if text.lstrip("+-").replace("_", "").isdigit():
                self._error(path, f"number is too large ({len(text)} digits)")
            else:
                self._error(path, f"cannot read {abbreviate(text)!r} as a date")
            return None
        if not isinstance(value, str) and not node.style:
            self.source.plain_text[path] = str(node.value)
        return value

    def _key(self, key_node: yaml.Node) -> str | None:
        where = Position.of(key_node.start_mark)
        if not isinstance(key_node, yaml.ScalarNode):
            self._error_at(where, "a key must be a plain string, not a list or mapping")
            return None
        try:
            key = self.loader.construct_object(key_node)
        except (yaml.constructor.ConstructorError, ValueError):
            key = None
        if isinstance(key, str):
            return key
        text = abbreviate(str(key_node.value))
        self._error_at(
            where,
            f"key {text!r} must be a string, but YAML reads it as {yaml_type(key)}: "
            f'quote it ("{text}")',
        )
        return None

    def _report_duplicate_keys(self, node: yaml.MappingNode) -> None:
        seen: dict[tuple[str, object], int] = {}
        for index, (key_node, _) in enumerate(node.value):
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue
            first_index = seen.setdefault((key_node.tag, key_node.value), index)
            if first_index != index:
                first = Position.of(node.value[first_index][0].start_mark)
                self._error_at(
                    Position.of(key_node.start_mark),
                    f"duplicate key {abbreviate(str(key_node.value))!r} in this mapping "
                    f"(first at line {first.line}, column {first.column})",
                )

    def _error(self, path: YamlPath, message: str) -> None:
        self.diagnostics.append(self.source.diagnostic(path, message))

    def _error_at(self, where: Position, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.source.file, where.line, where.column, message))


def abbreviate(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def yaml_type(value: object) -> str:
    """How YAML read a value, in words a YAML user recognises."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"
