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
    if not completing:
        for position, token in enumerate(args):
            if token in HELP_OPTIONS or token == "--":
                break
            commands = [c for c in app.registered_commands if _command_name(c) == token]
            groups = [g for g in app.registered_groups if _group_name(g) == token]
            if not commands and not groups:
                continue
            branch = typer.main.get_command(_pruned(app, commands, groups))
            # A root option's value may spell a command name (``--profile plan``): keep the
            # branch only if click will read this token as the command.
            if command_index(list(args), branch) == position:
                return branch
            break
    return typer.main.get_command(app)


def _pruned(app: typer.Typer, commands: list[CommandInfo], groups: list[TyperInfo]) -> Any:
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
