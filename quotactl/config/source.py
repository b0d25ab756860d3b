"""YAML text -> plain Python data, remembering where every key and value was written.

PyYAML's ``safe_load`` forgets positions and silently keeps the last of two equal keys, so
this module composes the node graph itself and ``builder.Builder`` builds the data from it:
each key and value gets a ``FILE:LINE:COL`` position (``positions.SourceMap``), duplicate keys
and non-string keys become diagnostics, and aliases are expanded with a guard against cycles
and "billion laughs". YAML syntax errors become diagnostics here.

Two parsers, one result. When PyYAML was built with libyaml, its C parser reads the text
(about ten times faster than PyYAML's pure-Python scanner, which was most of the time of
``validate`` on a large config), and PyYAML's own composer and safe constructor turn its
events into nodes; libyaml's composer (``CSafeLoader``) does that too, faster, for text that
cannot nest more than ``LIBYAML_COMPOSER_MAX_NESTING`` levels (``loaders.nesting_bound``): it
recurses on the C stack and would crash the process on deeply nested input, where PyYAML's
raises RecursionError. The two parsers word their errors differently, so a file the C
parser rejects is parsed again by ``yaml.SafeLoader``, whose messages and positions are the
ones reported; so is a file with one of the few constructs on which they disagree
(``loaders.LIBYAML_DIFFERS``). Otherwise both give the same nodes and positions
(``tests/config/test_config_parsers.py`` holds them equal, on the checked-in configs and on
fuzzed text). Without libyaml, ``yaml.SafeLoader`` reads every file.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from quotactl.config.builder import MAX_DEPTH, Builder, Differs, TooLarge
from quotactl.config.loaders import (
    LIBYAML_COMPOSER_MAX_NESTING,
    LIBYAML_DIFFERS,
    libyaml_composer_loader,
    libyaml_loader,
    nesting_bound,
)
from quotactl.config.positions import START, Position, SourceMap
from quotactl.core.collector import collector_paused
from quotactl.errors import Diagnostic


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
    with collector_paused():
        if libyaml and (parsed := parse_with_libyaml(text, file)) is not None:
            return parsed
        return _parse_python(text, file, expected)


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
        builder = Builder(loader, source, libyaml=True)
        return ParsedFile(builder.build(node, ()), source, builder.diagnostics)
    except (yaml.YAMLError, ValueError, RecursionError, TooLarge, Differs):
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
        builder = Builder(loader, source)
        data = builder.build(node, ())
        return ParsedFile(data, source, builder.diagnostics)
    except yaml.MarkedYAMLError as exc:
        return ParsedFile(None, source, [_syntax_error(exc, text, file)])
    except yaml.reader.ReaderError as exc:
        return ParsedFile(None, source, [_reader_error(exc, text, file)])
    except TooLarge as exc:
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
