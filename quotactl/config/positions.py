"""Where each key and value of a YAML file was written: ``FILE:LINE:COL`` for every message.

A ``SourceMap`` is filled while a file is read (``quotactl.config.builder``) and asked when a
finding is reported: ``value_position`` falls back to the nearest parent a value has, so a
message about a value the file lacks points at the mapping that should have held it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

from quotactl.errors import Diagnostic, Severity

if TYPE_CHECKING:
    from collections.abc import Sequence

    import yaml

YamlPath = tuple[str | int, ...]
"""Where a value sits in a document: mapping keys and list indices from the top."""


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
