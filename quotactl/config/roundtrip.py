"""The one round-trip YAML setup: ruamel.yaml reading and writing config files as written.

Comments, anchors, aliases, merge keys and quoting survive a load and a dump, which is what a
formatter (``quotactl fmt``) or any tool that rewrites a config in place needs. The indentation
is the house layout: mappings by two spaces, a sequence's dashes two spaces under its key.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from quotactl.errors import ConfigError, Diagnostic

if TYPE_CHECKING:
    from ruamel.yaml import YAML

UNWRAPPED = 1 << 16
"""ruamel folds long lines at its width: a width no line reaches keeps every line as written."""


def round_trip(*, explicit_start: bool = False, like: str | None = None) -> YAML:
    """A ruamel.yaml instance that keeps comments, anchors and quotes: in the house indentation,
    or with the indentation the text ``like`` uses (mappings, sequences and dashes), so an edit
    of a file keeps its layout."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    if like is None:
        yaml.indent(mapping=2, sequence=4, offset=2)
    else:
        from ruamel.yaml.util import load_yaml_guess_indent

        _, indent, dash = load_yaml_guess_indent(like)
        dash = dash or 0
        yaml.indent(
            mapping=max(1, indent - dash) if indent else 2, sequence=indent or 2, offset=dash
        )
    yaml.preserve_quotes = True
    yaml.width = UNWRAPPED
    yaml.explicit_start = explicit_start
    return yaml


def load(text: str, file: str) -> Any:
    """One YAML document as ruamel's commented data; a YAML error is ``config-invalid``."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return round_trip().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = exc.problem or exc.context or "not valid YAML"
        raise ConfigError([Diagnostic(file, line, column, problem)]) from None
    except YAMLError as exc:
        raise ConfigError([Diagnostic(file, 1, 1, str(exc).splitlines()[0])]) from None


def dump(data: Any, *, explicit_start: bool = False) -> str:
    """``data`` (as ``load`` returned it, perhaps changed) as YAML text."""
    out = io.StringIO()
    round_trip(explicit_start=explicit_start).dump(data, out)
    return out.getvalue()
