"""The PyYAML loaders config parsing can use: libyaml's C parser when PyYAML was built with it.

``libyaml_loader()`` gives ``yaml.CSafeLoader`` with one change: PyYAML's own composer turns
libyaml's events into nodes, not libyaml's composer, which recurses on the C stack and crashes
the process on deeply nested input (PyYAML's raises RecursionError, which is reported).
``LIBYAML_DIFFERS`` finds the text on which the two parsers disagree although both accept it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

import yaml
import yaml.composer
import yaml.constructor
import yaml.resolver

if TYPE_CHECKING:
    from collections.abc import Callable


class Loader(Protocol):
    """What parsing needs of a PyYAML loader: nodes out, and the safe constructor's help."""

    def get_single_node(self) -> yaml.Node | None: ...
    def construct_object(self, node: yaml.Node, deep: bool = False) -> object: ...
    def flatten_mapping(self, node: yaml.MappingNode) -> None: ...
    def dispose(self) -> None: ...


def libyaml_loader() -> Callable[[str], Loader] | None:
    """libyaml's parser under PyYAML's composer and safe constructor, if libyaml is there."""
    try:
        from yaml._yaml import CParser
    except ImportError:  # PyYAML built without libyaml
        return None

    class LibyamlLoader(
        yaml.composer.Composer, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver
    ):
        """``yaml.CSafeLoader`` with PyYAML's composer in place of libyaml's."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    return LibyamlLoader


def libyaml_composer_loader() -> Callable[[str], Loader] | None:
    """``yaml.CSafeLoader`` itself (libyaml's composer too), if libyaml is there: for text
    that ``nesting_bound`` shows cannot nest deeply enough to exhaust the C stack."""
    return getattr(yaml, "CSafeLoader", None) if libyaml_loader() is not None else None


LIBYAML_COMPOSER_MAX_NESTING = 1_000
"""Deepest nesting handed to libyaml's composer (it needs a few hundred bytes of C stack per
level: 1,000 levels fit a 1 MB thread stack with room to spare; the main thread has 8 MB).
A config nests six levels; a file that could nest deeper is composed by PyYAML's composer."""


def nesting_bound(text: str) -> int:
    """An upper bound on how deeply the YAML ``text`` nests.

    Every collection needs a character of its own among ``-`` (a block sequence entry),
    ``:`` (a mapping key), ``[`` and ``{``; ``?`` keys send the text elsewhere
    (``LIBYAML_DIFFERS``) and aliases re-use a node without nesting. Characters inside
    scalars only make the bound looser.
    """
    return text.count("-") + text.count(":") + text.count("[") + text.count("{") + 1


LIBYAML_DIFFERS = re.compile(r"[!?\t\ufeff]|[|>][-+0-9]*#")
"""Text on which libyaml and PyYAML disagree although both accept it (found by differential
fuzzing): tags, tabs, a byte-order mark inside the text, ``?`` (explicit keys; a ``?`` in a
flow scalar) and a block scalar header followed by ``#``. Such files, rare in configs, go to
the pure-Python parser, as do files with an omitted value (``key:``, see ``builder.Differs``)."""
