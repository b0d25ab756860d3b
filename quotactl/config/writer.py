"""Configuration documents -> YAML files: what ``export`` writes, safely.

Every file starts with a header comment; every path stays inside the output directory (names
come from live tags, so each part is checked and the resolved path must be under ``out``). A
non-empty directory is refused unless ``force``, which also removes team files that the new
export no longer has (otherwise the next plan would read a team that does not exist).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.core.files import kind, write_text
from quotactl.errors import FileIOError, OutNotEmptyError, UnsafePathError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

HEADER = "# Exported by `quotactl export`: a plan on these files shows no change.\n"
TEAMS_DIR = "teams"
_SAFE_PART = re.compile(r"[A-Za-z0-9_-]{1,128}(\.yaml)?")


@dataclass
class Written:
    """What one export did to the output directory (paths relative to it)."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    """YAML files left alone that ``plan DIR`` would read too."""


def dump(document: Mapping[str, Any]) -> str:
    """One configuration document as YAML, after the header comment."""
    import yaml

    body: str = yaml.safe_dump(dict(document), sort_keys=False, default_flow_style=None, width=100)
    return HEADER + body


def check_out(out: Path) -> None:
    """``io-error`` unless ``out`` is a directory or missing (it is created)."""
    found = kind(out)
    if found not in ("a directory", "missing"):
        what = "a file" if found is None else found
        raise FileIOError(
            f"--out {out} is {what}, not a directory; nothing was written",
            hint="export writes a directory of YAML files: give a new or empty directory",
        )


def write(files: Mapping[str, Mapping[str, Any]], out: Path, *, force: bool) -> Written:
    """Write ``files`` (relative path -> document) under ``out``."""
    check_out(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise OutNotEmptyError(
            f"--out {out} is not empty; nothing was written",
            hint="give a new or empty directory, or --force to overwrite it (team files of "
            "teams that no longer exist are removed)",
        )
    targets = {relative: _inside(out, relative) for relative in files}
    result = Written()
    try:
        for relative, document in files.items():
            path = targets[relative]
            path.parent.mkdir(parents=True, exist_ok=True)
            _inside(out, relative)  # again: a symlinked directory must not lead outside
            write_text(path, "config file", dump(document))
            result.written.append(relative)
        for path in sorted((out / TEAMS_DIR).glob("*")) if (out / TEAMS_DIR).is_dir() else []:
            relative = f"{TEAMS_DIR}/{path.name}"
            if relative not in files and path.suffix in (".yaml", ".yml") and _exported(path):
                path.unlink()
                result.removed.append(relative)
    except OSError as exc:
        raise FileIOError(
            f"cannot write under {out}: {exc.strerror or exc}",
            hint="give --out a directory (new or empty) that quotactl can write to",
        ) from exc
    result.others = sorted(
        str(p.relative_to(out))
        for p in out.rglob("*")
        if p.suffix in (".yaml", ".yml") and str(p.relative_to(out)) not in files and p.is_file()
    )
    return result


def _exported(path: Path) -> bool:
    """A team file an export wrote (a regular file starting with its header): the only kind
    ``--force`` removes; a link, or a file someone wrote by hand, is left alone."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            return handle.read(len(HEADER.encode())) == HEADER.encode()
    except OSError:
        return False


def _inside(out: Path, relative: str) -> Path:
    """``out / relative``, refusing any part that is not a plain name or leads outside."""
    parts = relative.split("/")
    if not all(_SAFE_PART.fullmatch(p) for p in parts):
        raise UnsafePathError(f"refusing to write {relative!r}: not a plain file name")
    path = out.joinpath(*parts)
    root = out.resolve()
    if path.exists() or path.parent.exists():
        resolved = path.resolve()
        if resolved != root and root not in resolved.parents:
            raise UnsafePathError(f"refusing to write {relative!r}: it leads outside {out}")
    return path
