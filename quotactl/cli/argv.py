"""The command line before and after click: global options anywhere, usage errors as errors.

``hoist_global_options`` lets global options follow the command, as kubectl and the AWS CLI
allow (``quotactl apply configs/demo -q``): it walks the registered command tree, so every
command, present and future, gets it without a line of its own. An option the command itself
defines keeps its meaning there. ``usage_error`` turns click's usage errors into the same
``error[usage]: ...`` and hint as every other error.
"""

from __future__ import annotations

import re
from typing import Any

from quotactl.errors import UsageError

# typer ships its own copy of click (``typer._click``), so commands, options and exceptions are
# recognised by shape and class name rather than by importing a private module.


def _options(command: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for param in command.params:
        if getattr(param, "param_type_name", None) == "option":
            for name in (*param.opts, *param.secondary_opts):
                found[name] = param
    return found


def _takes_value(option: Any, token: str) -> bool:
    return not option.is_flag and not option.count and "=" not in token


def _name(token: str) -> str:
    return token.split("=", 1)[0] if token.startswith("--") else token


def command_index(args: list[str], root: Any) -> int:
    """Where the command's name is in ``args``: after the root's options (and their values)."""
    roots = _options(root)
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        option = roots.get(_name(args[index]))
        index += 2 if option is not None and _takes_value(option, args[index]) else 1
    return index


def hoist_global_options(args: list[str], root: Any) -> list[str]:
    """``args`` with the root's options moved from after the command to before it, and the
    command's arguments after its options; after a ``--`` when one looks like a negative
    number (``job priority ID -5``), which click would otherwise take for an option."""
    roots = _options(root)
    index = command_index(args, root)
    start = min(index, len(args))
    command = root
    while isinstance(getattr(command, "commands", None), dict) and index < len(args):
        sub = command.commands.get(args[index])
        if sub is None:
            break
        command, index = sub, index + 1
    if command is root:
        return args
    own = _options(command)
    moved: list[str] = []
    kept: list[str] = []
    values: list[str] = []
    dashes = False
    rest = args[index:]
    position = 0
    while position < len(rest):
        token = rest[position]
        position += 1
        if token == "--":
            values += rest[position:]
            dashes = True
            break
        name = _name(token)
        if token.startswith("-") and name in own:
            kept.append(token)
            if _takes_value(own[name], token) and position < len(rest):
                kept.append(rest[position])
                position += 1
        elif token.startswith("-") and name in roots:
            moved.append(token)
            if _takes_value(roots[name], token) and position < len(rest):
                moved.append(rest[position])
                position += 1
        elif token.startswith("-") and not NEGATIVE.match(token):
            kept.append(token)  # an unknown option: click says so
        else:
            values.append(token)
    if dashes or any(NEGATIVE.match(v) for v in values):
        # click reads "-5" as an option; after "--" it is the value it was meant to be
        return args[:start] + moved + args[start:index] + kept + ["--", *values]
    return args[:start] + moved + args[start:index] + kept + values


NEGATIVE = re.compile(r"-[0-9.]")
"""A value that starts like a negative number or duration (``-5``, ``-1s``, ``-.5``)."""


def is_click_error(exc: BaseException) -> bool:
    """A usage error click raised (unknown option, bad value, missing argument...)."""
    return _named(exc, "ClickException")


def _named(exc: BaseException, name: str) -> bool:
    return any(cls.__name__ == name for cls in type(exc).__mro__)


def usage_error(exc: Any) -> UsageError | None:
    """click's usage error as a quotactl one; None for "no arguments" (click shows help)."""
    if _named(exc, "NoArgsIsHelpError"):
        return None
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "quotactl"
    hint = f"`{path} --help` shows the usage"
    if _named(exc, "NoSuchOption"):
        message = f"no such option: {exc.option_name}"
        if exc.possibilities:
            hint = f"did you mean {', '.join(sorted(exc.possibilities))}? " + hint
    else:
        text = plain_words(str(exc.format_message()))
        message = text[:1].lower() + text[1:]
    return UsageError(message, hint=hint)


_LIBRARY_WORDING = (
    # what typer's converters (pydantic) and click say -> quotactl's own words
    (re.compile(r"Value error, "), ""),
    (re.compile(r"Input should be greater than or equal to (\S+)"), r"must be at least \1"),
    (re.compile(r"Input should be less than or equal to (\S+)"), r"must be at most \1"),
    (re.compile(r"Input should be greater than (\S+)"), r"must be more than \1"),
    (re.compile(r"Input should be less than (\S+)"), r"must be less than \1"),
    (re.compile(r"Input should be a valid integer[^.]*"), "must be a whole number"),
    (re.compile(r"Input should be a valid number[^.]*"), "must be a number"),
    (re.compile(r"Input should be a valid boolean[^.]*"), "must be true or false"),
    (re.compile(r"(\S+) is not in the range (\S+)<=x<=(\S+)\.?"), r"\1 must be from \2 to \3"),
    (re.compile(r": (.*) is not one of (.*?)\.?$", re.S), r": \1: choose one of \2"),
)


def plain_words(text: str) -> str:
    """A library's message for a bad value, in the words quotactl uses everywhere else."""
    for pattern, words in _LIBRARY_WORDING:
        text = pattern.sub(words, text)
    return text


def wants_json(args: list[str]) -> bool:
    """``-o json``, ``-ojson``, ``--output json`` or ``--output=json`` among the arguments."""
    for index, arg in enumerate(args):
        if arg in ("-o", "--output") and args[index + 1 : index + 2] == ["json"]:
            return True
        if arg in ("-ojson", "--output=json"):
            return True
    return False
