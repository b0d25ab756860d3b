"""Help a person reads: metavars instead of Python type names, summaries that are not cut.

typer prints an argument as ``PATH <list[Path]>`` and an option without a metavar as
``--jobs <int range>``, and click cuts a command's summary at 45 characters in the command
list. ``readable_commands`` gives every registered command the class ``ReadableCommand`` and
``humanise`` walks the built command tree once per run, so no command module has to remember:

- arguments show their metavar only, in capitals (``PATH...`` when they take several);
- an option without a metavar gets argparse's convention, its name in capitals
  (``--seed SEED``), or its choices (``-o text|json``);
- a command's summary is the first sentence of its help, whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperOption

if TYPE_CHECKING:
    from collections.abc import Iterator


class ReadableCommand(TyperCommand):
    """A typer command whose help shows each argument by its metavar alone (``PATH...``),
    never its Python type (typer's ``PATH <list[Path]>``). It overrides click's own hooks for
    a command's help, ``collect_usage_pieces`` and ``format_options``; ``humanise`` makes it
    the class of every registered command (``command(cls=...)``, typer's public setting)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                pieces.append(_usage_name(param))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((_listed_name(param), record[1]))
            elif param.param_type_name == "option":
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


def _name(argument: TyperArgument) -> str:
    return argument.metavar or (argument.name or "value").upper()


def _listed_name(argument: TyperArgument) -> str:
    return _name(argument) + ("..." if argument.nargs != 1 else "")


def _usage_name(argument: TyperArgument) -> str:
    """``DURATION`` when required, ``[PATH]...`` when optional (click's own convention)."""
    name = _name(argument) if argument.required else f"[{_name(argument)}]"
    return name + ("..." if argument.nargs != 1 else "")


def readable_commands(app: typer.Typer) -> None:
    """Make ``ReadableCommand`` the class of every command registered on ``app`` and its
    groups that names no class of its own (typer's default is ``TyperCommand``)."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = ReadableCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            readable_commands(group.typer_instance)


def humanise(root: Any) -> None:
    """Readable option metavars and whole summaries on ``root`` and every command below it."""
    for command in _walk(root):
        if command.short_help is None and command.help:
            command.short_help = first_sentence(command.help)
        for param in command.params:
            if isinstance(param, TyperOption) and not (param.metavar or param.is_flag):
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
