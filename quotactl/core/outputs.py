"""What a command prints with ``-o``, spelled once: the keys of render's view registry.

Each enum is the set one kind of command offers (typer shows its values as the choices);
they share their values, and a view is registered under the value, so ``Output.JSON`` and
``ReportOutput.JSON`` select the same view of a result.
"""

from __future__ import annotations

import enum


class Output(enum.StrEnum):
    """A read command's ``-o``: a table for people, or one JSON document."""

    TEXT = "text"
    JSON = "json"


class ReportOutput(enum.StrEnum):
    """A report's ``-o`` (a plan, a what-if, a search): also markdown, for a PR comment."""

    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"


class StatusOutput(enum.StrEnum):
    """``status -o``: a table, one JSON document, or Prometheus's OpenMetrics text."""

    TEXT = "text"
    JSON = "json"
    OPENMETRICS = "openmetrics"


AnyOutput = Output | ReportOutput | StatusOutput
