"""``completion``: the shell completion script for bash, zsh or fish.

Completion itself is typer's: the script calls ``quotactl`` back with ``_QUOTACTL_COMPLETE``
set, and the root command answers with the commands, options and values that fit
(``enable_if_requested`` prepares that answer before the command line is parsed). A command
(rather than typer's ``--install-completion``) keeps the root's options to what users type
every day and never edits a shell's start-up file behind the user's back, as ``kubectl
completion`` and ``gh completion`` do.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from collections.abc import Mapping

PROG = "quotactl"
COMPLETE_VAR = "_QUOTACTL_COMPLETE"


class Shell(StrEnum):
    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"


def completion(
    ctx: typer.Context,
    shell: Annotated[
        Shell,
        typer.Argument(metavar="bash|zsh|fish", help="The shell to print the script for."),
    ],
) -> None:
    """Print the shell completion script for bash, zsh or fish.

    Load it for this shell with eval "$(quotactl completion bash)", or add that line to
    ~/.bashrc (zsh: ~/.zshrc with "zsh"; fish: quotactl completion fish >
    ~/.config/fish/completions/quotactl.fish).
    """
    # typer keeps these two in private modules; typer.completion re-exports them implicitly.
    from typer._completion_shared import get_completion_script

    from quotactl.cli.runtime import runtime_of

    script = get_completion_script(prog_name=PROG, complete_var=COMPLETE_VAR, shell=shell.value)
    runtime_of(ctx).stdout.write(script + "\n")


def enable_if_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """When a shell asks for completions, register typer's answer formats first; True then."""
    if not environ.get(COMPLETE_VAR):
        return False
    from typer._completion_classes import completion_init

    completion_init()
    return True


def offer_global_options(root: Any) -> None:
    """Give every command the root's options while completing, so that they are offered
    after the command too (``quotactl plan --qu<TAB>``), as the command line accepts them
    there (``quotactl.cli.argv.hoist_global_options``)."""
    globals_ = [p for p in root.params if getattr(p, "param_type_name", None) == "option"]
    pending = list(getattr(root, "commands", {}).values())
    while pending:
        command = pending.pop()
        pending += list(getattr(command, "commands", {}).values())
        taken = {name for p in command.params for name in (*p.opts, *p.secondary_opts)}
        names = {p.name for p in command.params}
        command.params += [
            p
            for p in globals_
            if p.name not in names
            and not taken & {*p.opts, *p.secondary_opts}
            and p.name not in ("version", "help")
        ]


def register(app: typer.Typer) -> None:
    app.command("completion")(completion)
