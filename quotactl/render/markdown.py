"""Markdown that user data cannot break: code spans and fenced blocks whose backtick runs are
longer than any run in what they hold (CommonMark: https://spec.commonmark.org/0.31.2/#code-spans
and https://spec.commonmark.org/0.31.2/#fenced-code-blocks)."""

from __future__ import annotations

import re


def _longest_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def code_span(text: str) -> str:
    """``text`` as inline code: a backtick, a table's ``|`` or a newline inside stays inside."""
    ticks = "`" * (_longest_run(text) + 1)
    inner = text.replace("|", "\\|").replace("\n", " ")
    pad = " " if inner.startswith("`") or inner.endswith("`") else ""
    return f"{ticks}{pad}{inner}{pad}{ticks}"


def fenced(body: str, info: str = "") -> list[str]:
    """``body`` as a fenced code block (its lines): no line of ``body`` can close it."""
    fence = "`" * max(3, _longest_run(body) + 1)
    return [f"{fence}{info}", body, fence]
