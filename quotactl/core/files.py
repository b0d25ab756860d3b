"""Every file a command reads or writes goes through here: one rule for what a path may be,
and one way to write (a temporary file beside the target, renamed over it when complete).

A path that exists but is no regular file (a directory, a device such as ``/dev/null``, a
named pipe, a socket) is refused with ``io-error`` naming what it is, before anything is read
or written. A write never leaves a partial file: it goes to a hidden temporary file in the
target's directory, which replaces the target in one rename once the content is complete and
is removed on any failure or interrupt. Nothing is created outside the target's directory.

Two guards hold for every command. *Ours to replace or delete*: a symbolic link is written
through (the link stays, its target gets the new content, as Terraform does) and a link to
nothing is refused; an existing file is replaced only when it is text, so a state file, a
database or any binary is never overwritten; deleting (``local reset``) asks the caller to
recognise the file as its own first (``check_ours``). *Inside the tree*: a file found under a
directory named on the command line is read only when it resolves inside one of the paths
named there (``files_under``), so a link in a pull request cannot make quotactl read, and
print in a comment, a file of the machine it runs on.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from quotactl.errors import (
    ConfigOutsideTreeError,
    Diagnostic,
    FileIOError,
    FileTooLargeError,
    NotOursError,
)

MiB = 1024 * 1024
MAX_CONFIG_BYTES = 8 * MiB
"""One config file: a platform of a thousand shares is well under 1 MiB."""
MAX_JOB_SPEC_BYTES = 1 * MiB
"""One job spec: AWS takes a CreateTrainingJob request of a few hundred KiB at most."""
MAX_TRACE_BYTES = 4 * 1024 * MiB
"""One trace: 4 GiB is some 60 million jobs, hours of replay."""

HEAD_BYTES = 8192
"""How much of an existing file is looked at to tell text from binary before replacing it."""

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence


def kind(path: Path) -> str | None:
    """What ``path`` is when it is no regular file ("a directory", "a device", "missing"...);
    None for a regular file (or a link to one)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing (a parent is a file)"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_readable(path: Path, what: str, *, hint: str | None = None) -> None:
    """Raise ``io-error`` unless ``path`` is a regular file (``what`` names it: "job spec")."""
    found = kind(path)
    if found is None:
        return
    if found == "missing":
        raise FileIOError(f"{what} {path} does not exist", hint=hint)
    raise FileIOError(f"{what} {path} is {found}, not a file", hint=hint)


def check_size(path: Path, limit: int, what: str) -> None:
    """``file-too-large`` for a file over ``limit`` bytes, before any of it is read."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # reading it says what is wrong
    if size > limit:
        raise FileTooLargeError(
            f"{what} {path} is {_size(size, limit)}; a {what} may be at most {_size(limit, size)}",
            hint="is it the file you meant? nothing was read",
        )


def _size(count: int, other: int | None = None) -> str:
    """``count`` in the largest unit that tells it apart from ``other`` (bytes when both
    would read the same, such as a file one byte over a 1 MiB limit)."""
    for unit, name in ((1024 * MiB, "GiB"), (MiB, "MiB")):
        if count >= unit:
            shown = f"{count / unit:.1f} {name}"
            if other is None or shown != f"{other / unit:.1f} {name}":
                return shown
    return f"{count:,} bytes"


def check_writable(path: Path, what: str) -> None:
    """Raise unless ``path`` can be written as a ``what``: missing or a regular file (or a
    link to one), in a directory that exists (it is not created); see ``write_target``."""
    write_target(path, what)


def write_target(path: Path, what: str) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the file a symbolic link
    there leads to (the link is kept). ``io-error`` for a link to nothing, a directory, a
    device or a missing directory; ``not-ours`` for an existing file that is not text (a
    state file, a database, any binary) or, for a plan file or a report, not one."""
    target = path
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise FileIOError(
                f"{what} {path} is a symbolic link to nothing (or a loop); nothing was written",
                hint="give the path of a file to create or replace, or fix the link",
            ) from None
    found = kind(target)
    if found is not None and found != "missing":
        raise FileIOError(
            f"{what} {path} is {found}, not a file; nothing was written",
            hint="give the path of a file to create or replace",
        )
    parent = target.parent
    parent_kind = kind(parent)
    if parent_kind != "a directory":
        shown = "does not exist" if parent_kind == "missing" else f"is {parent_kind}"
        raise FileIOError(
            f"cannot write {what} {path}: directory {parent} {shown}; nothing was written",
            hint="create the directory first, or give a path in one that exists",
        )
    head = _head(target)
    if b"\0" in head:
        raise NotOursError(
            f"{what} {path} exists and is not a text file (a quotactl state file, a database "
            "or other binary data): quotactl does not replace it; nothing was written",
            hint="give another path, or move that file aside yourself",
        )
    recognise = _KINDS.get(what)
    if head.strip() and recognise is not None and not recognise(head):
        raise NotOursError(
            f"{what} {path} exists and is no {what}: quotactl does not replace it with one; "
            "nothing was written",
            hint="give another path, or move that file aside yourself",
        )
    return target


_KINDS: dict[str, Callable[[bytes], bool]] = {
    "plan file": lambda head: head.lstrip().startswith(b"{"),
    "report": lambda head: head.lstrip()[:15].lower() == b"<!doctype html>",
}
"""What an existing file must look like to be replaced by a writer of that name: a plan
(JSON) never overwrites a config or a job spec, a report never overwrites a page someone wrote."""


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES)
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise FileIOError(f"cannot read {path}: {exc.strerror or exc}") from None


def check_ours(path: Path, what: str, recognise: Callable[[Path], bool]) -> None:
    """Refuse (``not-ours``) to delete ``path`` unless it is a regular file ``recognise``
    knows as the caller's own: never a link, a directory, a device or anyone else's file."""
    if path.is_symlink():
        raise NotOursError(
            f"{path} is a symbolic link, not a {what}: nothing was deleted",
            hint="quotactl deletes only the file itself; point at the file the link leads to",
        )
    found = kind(path)
    if found is not None:
        raise NotOursError(f"{path} is {found}, not a {what}: nothing was deleted")
    if not recognise(path):
        raise NotOursError(
            f"{path} is not a {what}: nothing was deleted",
            hint="quotactl deletes only files it made; remove that file yourself if it should go",
        )


@contextlib.contextmanager
def replacing(path: Path, what: str) -> Iterator[TextIO]:
    """A stream whose content becomes ``path`` whole when the block ends without an error, and
    never at all otherwise (UTF-8, ``\\n`` line endings). ``what`` names the file in errors.
    Through a symbolic link, the file it leads to is replaced and the link kept."""
    target = write_target(path, what)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        # O_EXCL: never follow or reuse someone else's file; mode 0666 less the umask, like
        # any file the user creates.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise FileIOError(
            f"cannot write {what} {path}: {exc.strerror or exc}; nothing was written"
        ) from None
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as text:
            yield text
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise FileIOError(
            f"cannot write {what} {path}: {exc.strerror or exc}; nothing was written"
        ) from None
    except BaseException:
        _remove(temporary)
        raise


def write_text(path: Path, what: str, text: str) -> None:
    """``path`` replaced by ``text`` in one rename."""
    with replacing(path, what) as out:
        out.write(text)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


# -- inside the tree ------------------------------------------------------------------------
def files_under(directory: Path, suffixes: Sequence[str], within: Sequence[Path]) -> list[Path]:
    """The files named ``*<suffix>`` under ``directory`` (recursively, sorted), refusing with
    ``config-outside-tree`` any symbolic link there (to a file or a directory) that leads
    outside every path of ``within`` (the paths named on the command line): its target is
    never opened. A link to a directory inside is not followed (its files are found where
    they are); the paths of ``within`` themselves are taken as named."""
    bounds = [_real(path) for path in within]
    found: list[Path] = []
    for path in directory.rglob("*"):
        if path.is_symlink():
            real = _real(path)
            if not any(real == bound or bound in real.parents for bound in bounds):
                if path.suffix in suffixes or real.is_dir():
                    raise outside_tree(path, within)
                continue
            if real.is_dir():
                continue
        if path.suffix in suffixes and path.is_file():
            found.append(path)
    return sorted(found)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        return Path(os.path.abspath(path))


def outside_tree(path: Path, within: Sequence[Path]) -> ConfigOutsideTreeError:
    named = ", ".join(str(p) for p in within[:3]) + (", ..." if len(within) > 3 else "")
    message = (
        f"a symbolic link that leads outside the paths named on the command line ({named}); "
        "it was not read"
    )
    return ConfigOutsideTreeError(
        [Diagnostic(str(path), 1, 1, message)],
        message=f"{path} leads outside {named}; nothing was read from it",
        hint="replace the link with the file itself, or name its target on the command line",
    )
