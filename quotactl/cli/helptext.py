"""Help a person reads: metavars instead of Python type names, summaries that are not cut.

typer prints an argument as ``PATH <list[Path]>`` and an option without a metavar as
``--jobs <int range>``, and click cuts a command's summary at 45 characters in the command
list. ``humanise`` walks the built command tree once per run and fixes all three for every
command, including ones added later, so no command module has to remember:

- arguments show their metavar only, in capitals (``PATH...`` when they take several);
- an option without a metavar gets argparse's convention, its name in capitals
  (``--seed SEED``), or its choices (``-o text|json``);
- a command's summary is the first sentence of its help, whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from typer.core import TyperArgument, TyperOption

if TYPE_CHECKING:
    from collections.abc import Iterator


class _ReadableArgument(TyperArgument):
    """A typer argument whose help shows its metavar and nothing of its Python type."""

    @property
    def display_name_raw(self) -> str:
        return self.metavar or (self.name or "value").upper()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _rich_display_name(self) -> str:
        return self.display_name_raw + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        """``DURATION`` when required, ``[PATH]...`` when optional (click's own convention)."""
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")


def humanise(root: Any) -> None:
    """Readable metavars and whole summaries on ``root`` and every command below it."""
    for command in _walk(root):
        if command.short_help is None and command.help:
            command.short_help = first_sentence(command.help)
        for param in command.params:
            if isinstance(param, TyperArgument):
                param.__class__ = _ReadableArgument
            elif isinstance(param, TyperOption) and not (param.metavar or param.is_flag):
                param.metavar = option_metavar(param)


def option_metavar(option: TyperOption) -> str:
    """``text|json`` for a choice, else the option's name in capitals (``--out`` -> ``OUT``)."""
    described = option.type_descriptor
    if described.is_choice and described.choices:
        return "|".join(str(getattr(c, "value", c)) for c in described.choices)
    return (option.name or "value").upper()


def first_sentence(text: str) -> str:
    """The first sentence of a docstring: up to the first ". " or the first blank line."""
    paragraph = text.strip().split("\n\n", 1)[0]
    flat = " ".join(paragraph.split())
    head, dot, _ = flat.partition(". ")
    return head + "." if dot else flat


def _walk(command: Any) -> Iterator[Any]:
    """The command and every command below it (typer builds groups with ``commands``)."""
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _walk(sub)
