"""Composed YAML nodes -> plain Python data, each key's and value's position noted.

PyYAML's safe constructor forgets positions and silently keeps the last of two equal keys;
``Builder`` walks the nodes itself: duplicate and non-string keys become diagnostics, merge
keys (``<<: *defaults``) are expanded, aliases are followed with a guard against cycles and
"billion laughs", and the two commonest scalars (strings and decimal counts) skip the
constructor, which would make the same of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from quotactl.config.positions import Position, SourceMap, YamlPath
from quotactl.errors import Diagnostic

if TYPE_CHECKING:
    from collections.abc import Iterable

    from quotactl.config.loaders import Loader

MAX_NODES = 100_000
"""Upper bound on values after alias expansion; real configs have a few hundred."""
MAX_DEPTH = 64
"""Upper bound on nesting; the config language itself nests six levels deep."""

_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"


class TooLarge(Exception):
    def __init__(self, path: YamlPath, message: str) -> None:
        super().__init__(message)
        self.path = path


class Differs(Exception):
    """libyaml placed a node elsewhere than PyYAML would: read the file with PyYAML."""


class Builder:
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
            raise TooLarge(
                path, f"the document holds more than {MAX_NODES:,} values (aliases expanded)"
            )
        if len(path) > MAX_DEPTH:
            raise TooLarge(
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
                raise Differs
            return node.value  # what SafeConstructor makes of a str scalar, without its cost
        if self.libyaml and not node.value and not node.style:
            raise Differs
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
