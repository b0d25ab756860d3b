"""The click command tree of one run: only the branch the command line names.

typer turns every registered command into a click command on each run (reading each
function's signature and annotations), which is a third of a simple command's start-up. A
run of ``quotactl COMMAND ...`` needs only the root's options and COMMAND (a group with all
its subcommands), so only that branch is built; the help of the root, shell completion and
anything that names no known command get the whole tree, as before.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import typer

from quotactl.cli.argv import command_index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typer.models import CommandInfo, TyperInfo

HELP_OPTIONS = frozenset({"-h", "--help"})


def command_tree(app: typer.Typer, args: Sequence[str], *, completing: bool = False) -> Any:
    """The click command for ``args``: the root with just the named command when ``args``
    name one, else the root with every command."""
    if completing:
        return typer.main.get_command(app)
    tokens = list(args)
    stop = next((i for i, t in enumerate(tokens) if t in HELP_OPTIONS or t == "--"), len(tokens))
    candidates = ((i, _branch(app, tokens[i])) for i in range(stop))
    first, pruned = next(((i, b) for i, b in candidates if b is not None), (None, None))
    if first is not None and pruned is not None:
        # The root's options are the same in every branch: where click will read the
        # command's name (after them and their values, which may spell a command name, as in
        # ``--profile plan``) is known from the first candidate's branch.
        branch = typer.main.get_command(pruned)
        index = command_index(tokens, branch)
        if index == first:
            return branch
        named = _branch(app, tokens[index]) if index < stop else None
        if named is not None:
            return typer.main.get_command(named)
    return typer.main.get_command(app)


def _branch(app: typer.Typer, name: str) -> typer.Typer | None:
    """``app`` with only the command or group called ``name``; None if there is none."""
    commands = [c for c in app.registered_commands if _command_name(c) == name]
    groups = [g for g in app.registered_groups if _group_name(g) == name]
    return _pruned(app, commands, groups) if commands or groups else None


def _pruned(app: typer.Typer, commands: list[CommandInfo], groups: list[TyperInfo]) -> typer.Typer:
    pruned = copy.copy(app)
    pruned.registered_commands = commands
    pruned.registered_groups = groups
    return pruned


def _command_name(info: CommandInfo) -> str | None:
    if info.name:
        return info.name
    callback = info.callback
    return typer.main.get_command_name(callback.__name__) if callback else None


def _group_name(info: TyperInfo) -> str | None:
    instance = info.typer_instance
    return info.name or (instance.info.name if instance is not None else None) or None
