"""botocore's rest-json response parser with each shape's walk built once, not looked up per value.

botocore turns a JSON body into a response by walking the output shape value by value: for
every node it looks up a handler by the shape's type name and, for every structure, every
member's wire name again. At 10,000 listed jobs (100 pages of ListServiceJobs) that walk is
about four fifths of parsing and a tenth of ``quotactl status``'s CPU; ``json.loads`` of the
same pages is about a fifth of it. ``RestJsonParser`` keeps botocore's parser (its body decoding,
errors, headers, response metadata and event streams) and replaces only the walk: the first
time it meets a shape it builds one function for it, from the members' wire names and the
converters of their shapes, and calls that from then on.

The functions do what botocore's handlers do, value for value and key for key in the same
order. ``tests/aws/test_parser.py`` holds the two parsers equal, errors included, on
responses drawn from the output and error shapes of Batch and four other rest-json services
that between them have every trait named here, junk values among them; a botocore release
that changes a handler fails it. What the functions do:

- a string is itself; an integer or long is ``int(value)``, a float or double
  ``float(value)``, a boolean botocore's ``ensure_boolean``; blobs and timestamps go through
  the parser's own blob and timestamp parsers;
- a list keeps its ``None`` items and converts the others; a map converts keys and values;
- a structure is ``None`` for ``null``, else its members in model order, each read under its
  wire name and left out when absent or ``null``; a document is itself.

What is not plain JSON walking stays botocore's own: members bound to headers or the status
code, JSON-valued headers, tagged unions, and any shape type this module does not know (a
newer botocore may add one). ``ParserFactory`` hands out this parser for rest-json (AWS
Batch's protocol) and botocore's own for every other protocol.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING, Any

from botocore import parsers
from botocore.utils import ensure_boolean

if TYPE_CHECKING:
    from collections.abc import Callable

    from botocore.model import Shape

    Convert = Callable[[Any], Any]
    Key = tuple[int, str]

PROTOCOL = "rest-json"

_MISSING = object()


def _int(value: Any) -> Any:
    return value if value.__class__ is int else int(value)


def _float(value: Any) -> Any:
    return value if value.__class__ is float else float(value)


def _bool(value: Any) -> Any:
    return value if value.__class__ is bool else ensure_boolean(value)


_SCALARS: dict[str, Convert | None] = {
    "string": None,  # None: the value is its own result
    "integer": _int,
    "long": _int,
    "float": _float,
    "double": _float,
    "boolean": _bool,
}
_WALKED = frozenset({*_SCALARS, "blob", "timestamp", "list", "map", "structure"})
"""The shape types whose walk is built here; any other goes to botocore's handler."""


class RestJsonParser(parsers.RestJSONParser):
    """botocore's ``RestJSONParser`` whose walk of each shape is built once (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._converters: dict[Key, Convert | None] = {}  # built, for every thread
        self._building: dict[Key, Convert] = {}  # being built, for the builder's thread
        self._models: dict[int, object] = {}  # the service models keyed by id, kept alive
        self._lock = threading.RLock()

    def _parse_shape(self, shape: Shape, node: Any) -> Any:
        convert = self._converter(shape)
        return node if convert is None else convert(node)

    def _generic(self, shape: Shape, node: Any) -> Any:
        """botocore's own dispatch on the shape's type (what ``_parse_shape`` did)."""
        return super()._parse_shape(shape, node)  # type: ignore[misc]

    def _converter(self, shape: Shape) -> Convert | None:
        serialization = shape.serialization
        if "location" in serialization or "jsonvalue" in serialization:
            return partial(self._generic, shape)  # bound to where it is read: botocore's
        # botocore makes a new Shape object each time it resolves a reference, so a walk is
        # keyed by the shape's name within its service model.
        resolver = shape._shape_resolver  # type: ignore[attr-defined]  # no public handle
        key = (id(resolver), shape.name)
        found = self._converters.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        with self._lock:  # one builder at a time; others wait and then find it built
            found = self._converters.get(key, _MISSING)
            if found is not _MISSING:
                return found  # type: ignore[return-value]
            if key in self._building:  # a recursive shape, met again inside its own build
                return self._building[key]
            self._models[id(resolver)] = resolver
            self._building[key] = partial(self._forward, shape)
            try:
                built = self._build(shape)
            finally:
                del self._building[key]
            self._converters[key] = built
            return built

    def _forward(self, shape: Shape, node: Any) -> Any:
        return self._parse_shape(shape, node)

    def _build(self, shape: Shape) -> Convert | None:
        kind = shape.type_name
        if kind not in _WALKED:
            return partial(self._generic, shape)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "blob":
            return self._blob_parser  # type: ignore[attr-defined,no-any-return]
        if kind == "timestamp":
            return self._timestamp_parser  # type: ignore[attr-defined,no-any-return]
        if kind == "list":
            return _list_of(self._converter(shape.member))  # type: ignore[attr-defined]
        if kind == "map":
            return _map_of(
                self._converter(shape.key),  # type: ignore[attr-defined]
                self._converter(shape.value),  # type: ignore[attr-defined]
            )
        if shape.is_document_type:  # type: ignore[attr-defined]
            return None
        if shape.is_tagged_union:  # type: ignore[attr-defined]
            return partial(self._generic, shape)
        members = shape.members  # type: ignore[attr-defined]
        return _structure_of(
            tuple(
                (name, member.serialization.get("name", name), self._converter(member))
                for name, member in members.items()
            )
        )


def _list_of(item: Convert | None) -> Convert:
    if item is None:
        return list
    return lambda node: [None if value is None else item(value) for value in node]


def _map_of(key: Convert | None, value: Convert | None) -> Convert:
    if key is None and value is None:
        return lambda node: dict(node.items())
    k = key or _same
    v = value or _same
    return lambda node: {k(name): v(item) for name, item in node.items()}


def _same(value: Any) -> Any:
    return value


def _structure_of(members: tuple[tuple[str, str, Convert | None], ...]) -> Convert:
    if not members:  # botocore reads nothing of the value then, whatever it is
        return lambda node: None if node is None else {}

    def convert(node: Any) -> Any:
        if node is None:
            return None
        parsed = {}
        get = node.get
        for name, wire, member in members:
            value = get(wire)
            if value is not None:
                parsed[name] = value if member is None else member(value)
        return parsed

    return convert


class ParserFactory(parsers.ResponseParserFactory):
    """botocore's parser factory, with ``RestJsonParser`` for rest-json: one parser a protocol
    (each keeps the walks it has built), made with the factory's defaults."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[str, parsers.ResponseParser] = {}

    def create_parser(self, protocol_name: str) -> parsers.ResponseParser:
        if protocol_name != PROTOCOL:
            return super().create_parser(protocol_name)
        made = self._made.get(protocol_name)
        if made is None:
            defaults = self._defaults  # type: ignore[attr-defined]
            made = self._made[protocol_name] = RestJsonParser(**defaults)
        return made

    def set_parser_defaults(self, **kwargs: Any) -> None:
        super().set_parser_defaults(**kwargs)
        self._made.clear()  # parsers made from here on take the new defaults
