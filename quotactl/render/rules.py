"""Views of the rules' results, the same in every command that judges rules: a text section,
a markdown table for a PR comment, and the JSON list (``{"name", "level", "check", "result",
"message"}`` per rule, in the rules' order).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from quotactl.render.markdown import code_span

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.text import Text

    from quotactl.core.rules import RuleResult
    from quotactl.render.views import Screen

STYLES = {"pass": "green", "fail": "bold red", "overridden": "yellow"}
WORDS = {"pass": "pass", "fail": "FAIL", "overridden": "overridden"}


def rules_json(results: Sequence[RuleResult]) -> list[dict[str, str]]:
    return [r.to_json() for r in results]


def tally(results: Sequence[RuleResult]) -> str:
    """``3 rules: 2 pass, 1 fail``."""
    counted = Counter(r.outcome.value for r in results)
    parts = [f"{counted[w]} {w}" for w in ("pass", "fail", "overridden") if counted[w]]
    noun = "rule" if len(results) == 1 else "rules"
    return f"{len(results)} {noun}: {', '.join(parts)}"


def rules_text(results: Sequence[RuleResult]) -> Text:
    """``Rules (3 rules: 2 pass, 1 fail):`` and one line per rule; empty without rules."""
    from rich.text import Text

    out = Text()
    for text, style in _parts(results):
        out.append(text, style=style)
    return out


def rules_plain(results: Sequence[RuleResult]) -> str:
    """The same as ``rules_text`` without styles (and without importing rich)."""
    return "".join(text for text, _ in _parts(results))


def _parts(results: Sequence[RuleResult]) -> list[tuple[str, str | None]]:
    if not results:
        return []
    parts: list[tuple[str, str | None]] = [(f"Rules ({tally(results)}):\n", "bold")]
    width = max(len(r.name) for r in results)
    for r in results:
        word, style = WORDS[r.outcome.value], STYLES[r.outcome.value]
        if r.outcome.value == "fail" and not r.blocks:
            word, style = "fail", "yellow"  # advisory: reported, the command succeeds
        parts += [
            (f"  {word:<10} ", style),
            (f"{r.name:<{width}}  ", None),
            (f"{r.level.value} {r.check.value}: ", "dim"),
            (f"{r.message}\n", None),
        ]
    return parts


def rules_markdown(results: Sequence[RuleResult]) -> list[str]:
    """The rules as markdown lines: a caution naming what fails, then a table."""
    if not results:
        return []
    lines = []
    failing = [r for r in results if r.blocks]
    if failing:
        names = ", ".join(f"{code_span(r.name)} ({r.level.value})" for r in failing)
        lines += ["> [!CAUTION]", f"> **Rules failed: {names}**", ""]
    lines += [
        f"**Rules** ({tally(results)})",
        "",
        "| rule | level | check | result | why |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        result = f"**{r.outcome.value}**" if r.outcome.value != "pass" else "pass"
        message = r.message.replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| {code_span(r.name)} | {r.level.value} | {r.check.value} | {result} | {message} |"
        )
    lines.append("")
    return lines


def rules_after_markdown(screen: Screen, results: Sequence[RuleResult]) -> None:
    """Every rule's result under a markdown report (nothing when no rule was judged)."""
    if results:
        screen.write("\n" + "\n".join(rules_markdown(results)))


def rules_after_text(console: Console, results: Sequence[RuleResult]) -> None:
    """Every rule's result under a text report, after a blank line (nothing without rules)."""
    if results:
        console.print()
        console.print(rules_text(results), end="", soft_wrap=True)
