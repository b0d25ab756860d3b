"""The canonical layout of a config file (``quotactl fmt``): one way to write each config.

The layout is the one the example configs are written in:

* keys in the schema's order (a record's fields as the reference lists them); keys the schema
  does not know follow, in the order written (other YAML, such as a job spec, keeps its order);
* two spaces per level, a sequence's dashes two spaces under its key; an end-of-line
  comment keeps its column;
* ``capacity``, ``tags`` and ``reasons`` in flow style (``{ml.p5.48xlarge: 8}``) when they hold
  only scalars, carry no comment and fit in 100 columns; every other mapping and sequence in
  block style;
* a quoted string plain when YAML reads it back as the same string (``name: "nlp"`` becomes
  ``name: nlp``), double-quoted otherwise (``"123456789012"``, ``"yes"``, ``"2e-5"``);
  ``account_id`` always double-quoted. A plain scalar is never quoted, since that could change
  what it means.

Formatting changes presentation only: the data read back is the same, every comment stays
(a comment above a key moves with the key), and anchors, aliases and merge keys are kept
(a mapping with a merge key keeps its order). Formatting a formatted file changes nothing.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from pydantic import BaseModel

from quotactl.config import roundtrip
from quotactl.config.comments import reorder
from quotactl.config.schema import ConfigFile

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedBase, CommentedMap

WIDTH = 100
"""The longest line a flow-style mapping or sequence may make."""
FLOW_KEYS = frozenset({"capacity", "tags", "reasons"})
"""The small mappings and sequences written in flow style when they fit."""
ALWAYS_QUOTED = frozenset({"account_id"})


@dataclass(frozen=True)
class Shape:
    """What the schema says of one value: its fields' order and shapes, or its items' shape."""

    fields: dict[str, Shape] = field(default_factory=dict)
    items: Shape | None = None


LEAF = Shape()


def shape_of(model: type[BaseModel]) -> Shape:
    """The shape of a pydantic model's values, read from its field annotations."""
    fields = model.model_fields.items()
    return Shape(fields={name: _annotation_shape(f.annotation) for name, f in fields})


def _annotation_shape(annotation: Any) -> Shape:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        shapes = [_annotation_shape(a) for a in get_args(annotation) if a is not type(None)]
        return next((s for s in shapes if s is not LEAF), LEAF)
    if origin is list:
        item = _annotation_shape(get_args(annotation)[0])
        return LEAF if item is LEAF else Shape(items=item)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return shape_of(annotation)
    return LEAF


CONFIG = shape_of(ConfigFile)


def document_shape(data: object) -> Shape:
    """A config file's shape; no shape (nothing reordered) for any other YAML, a job spec say."""
    if isinstance(data, dict) and data and set(data) <= set(CONFIG.fields):
        return CONFIG
    return LEAF


def format_text(text: str, file: str) -> str:
    """``text`` in the canonical layout; ``config-invalid`` when it is not one YAML document."""
    data = roundtrip.load(text, file)
    _arrange(data, document_shape(data), column=0)
    explicit_start = any(line.rstrip() == "---" for line in text.splitlines()[:50]) and (
        _first_content_line(text) == "---"
    )
    return roundtrip.dump(data, explicit_start=explicit_start)


def _first_content_line(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped
    return ""


def _arrange(node: Any, shape: Shape, column: int) -> None:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, CommentedMap):
        if shape.fields:
            reorder(node, list(shape.fields))
        for key, value in list(node.non_merged_items()):
            child = shape.fields.get(key, LEAF) if isinstance(key, str) else LEAF
            if isinstance(value, str):
                # CommentedMap's own __setitem__ would keep the old quotes
                dict.__setitem__(node, key, _quoted(value, always=key in ALWAYS_QUOTED))
            elif isinstance(value, CommentedMap | CommentedSeq):
                _style(node, key, value, column)
                inner = column + (2 if isinstance(value, CommentedMap) else 4)
                _arrange(value, child, inner)
    elif isinstance(node, CommentedSeq):
        item = shape.items or LEAF
        for index, value in enumerate(node):
            if isinstance(value, str):
                list.__setitem__(node, index, _quoted(value, always=False))
            elif isinstance(value, CommentedMap | CommentedSeq):
                value.fa.set_block_style()
                _arrange(value, item, column)


# -- style -------------------------------------------------------------------------------------


def _style(parent: CommentedMap, key: Any, value: CommentedBase, column: int) -> None:
    """Flow style for a small mapping or sequence of scalars that fits, block for the rest
    (an empty one is ``{}`` or ``[]``)."""
    if not value:
        value.fa.set_flow_style()
        return
    if key in FLOW_KEYS:
        _hoist_trailing(parent, key, value)
        text = _flow_text(value)
        if text is not None and column + len(str(key)) + 2 + len(text) <= WIDTH:
            value.fa.set_flow_style()
            return
    value.fa.set_block_style()


def _flow_text(value: Any) -> str | None:
    """What ``value`` looks like in flow style, or None when it cannot be written so."""
    from ruamel.yaml.comments import CommentedMap

    if not value or _has_comments(value) or getattr(value, "merge", None):
        return None
    pairs = value.items() if isinstance(value, CommentedMap) else ((None, v) for v in value)
    parts: list[str] = []
    for k, v in pairs:
        scalar = _scalar_text(v)
        if scalar is None or (k is not None and _scalar_text(k) is None):
            return None
        parts.append(scalar if k is None else f"{_scalar_text(k)}: {scalar}")
    brackets = "{}" if isinstance(value, CommentedMap) else "[]"
    return brackets[0] + ", ".join(parts) + brackets[1]


def _scalar_text(value: Any) -> str | None:
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(value, dict | list):
        return None
    if isinstance(value, ScalarString) and type(value).__name__ in _QUOTES:
        return f'"{value}"'
    if isinstance(value, str):  # a plain scalar stays plain: in flow style too, or not at all
        return value if _emitter_allows(value, flow=True) else None
    return str(value).lower() if isinstance(value, bool) else str(value)


_QUOTES = ("SingleQuotedScalarString", "DoubleQuotedScalarString")


def _has_comments(value: Any) -> bool:
    attribute = value.ca
    if (attribute.comment and any(attribute.comment)) or attribute.end:
        return True
    return any(any(slot is not None for slot in slots) for slots in attribute.items.values())


def _hoist_trailing(parent: CommentedMap, key: Any, value: Any) -> None:
    """Comment lines after a block collection's last item belong after the pair itself."""
    from ruamel.yaml.comments import CommentedMap

    if not value or not isinstance(value, CommentedMap):
        return
    last = list(value.keys())[-1]
    slots = value.ca.items.get(last)
    if not slots or slots[2] is None or not slots[2].value.startswith("\n"):
        return
    if any(slots[i] is not None for i in (0, 1, 3)):
        return
    pair = parent.ca.items.get(key)
    if pair and any(slot is not None for slot in pair):
        return
    parent.ca.items[key] = [None, None, slots[2], None]
    del value.ca.items[last]


# -- quoting -----------------------------------------------------------------------------------


def _quoted(value: str, *, always: bool) -> str:
    """A quoted string plain when that reads back the same, double-quoted otherwise."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    name = type(value).__name__
    if name not in _QUOTES or _anchored(value) or "\n" in value:
        return value
    if not always and _plain_allowed(value, flow=True):
        return str(value)
    if name == "DoubleQuotedScalarString":
        return value
    quoted: str = DoubleQuotedScalarString(str(value))
    return quoted


def _anchored(value: Any) -> bool:
    anchor = getattr(value, "anchor", None)
    return anchor is not None and getattr(anchor, "value", None) is not None


def _plain_allowed(value: str, *, flow: bool) -> bool:
    """YAML (1.1, as quotactl reads it, and 1.2, as ruamel does) reads ``value`` plain as
    this same string."""
    import yaml
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.resolver import VersionedResolver

    if not _emitter_allows(value, flow=flow):
        return False
    text = "tag:yaml.org,2002:str"
    pyyaml = yaml.resolver.Resolver()
    if pyyaml.resolve(yaml.ScalarNode, value, (True, False)) != text:  # type: ignore[no-untyped-call]
        return False
    return bool(VersionedResolver().resolve(ScalarNode, value, (True, False)) == text)


def _emitter_allows(value: str, *, flow: bool) -> bool:
    """ruamel's emitter would write ``value`` plain (in a flow collection, with ``flow``)."""
    from ruamel.yaml.emitter import Emitter

    if not value or value != value.strip():
        return False
    analysis = Emitter(None).analyze_scalar(value)
    allowed = analysis.allow_flow_plain if flow else analysis.allow_block_plain
    return bool(allowed and not analysis.multiline)
