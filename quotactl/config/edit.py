"""Changing share settings in configuration files, keeping everything else as it was written.

``write_changed(paths, desired, out)`` writes every YAML file under ``paths`` to the directory
``out`` in the same layout (relative to the paths' common directory), with each team share's
``capacity``, ``sharing`` and ``borrow_limit`` set as ``desired`` says. The files are edited
with ruamel.yaml's round-trip mode, so comments, key order, flow or block style and quoting
stay; only the values that change are rewritten. A ``borrow_limit`` is removed when the
strategy no longer borrows, and a key left out (the default) stays out while its value is the
default. Each file is written whole or not at all; files already in ``out`` that the
configuration does not have are left alone, so ``--out`` may name the config directory itself.
"""

from __future__ import annotations

import copy
import io
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quotactl.config.load import discover_files
from quotactl.config.roundtrip import round_trip
from quotactl.core.files import kind, write_text
from quotactl.core.resources.desired import UNLIMITED, Strategy
from quotactl.core.tune.run import WrittenConfig
from quotactl.errors import FileIOError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.core.resources.desired import DesiredState, ShareSpec

SHARING = {
    Strategy.RESERVE: "reserve",
    Strategy.LEND: "lend",
    Strategy.LEND_AND_BORROW: "lend_and_borrow",
}


def write_changed(paths: Sequence[Path], desired: DesiredState, out: Path) -> WrittenConfig:
    """Write the configuration at ``paths`` to ``out`` with the share settings of ``desired``."""
    files = discover_files(paths)
    root = _common_root(paths)
    shares = {(s.queue, s.name): s for s in desired.shares}
    rendered = []
    for file in files:
        text = file.read_text(encoding="utf-8")
        rendered.append((file.resolve().relative_to(root), text, edit_text(text, shares)))
    check_out(out)
    changed = []
    for relative, before, after in rendered:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, "config file", after)
        if after != before:
            changed.append(relative)
    return WrittenConfig(out, tuple(r for r, _, _ in rendered), tuple(changed))


def check_out(out: Path) -> None:
    """``io-error`` unless ``out`` is a directory or missing (it is then created)."""
    found = kind(out)
    if found not in ("a directory", "missing"):
        raise FileIOError(
            f"--out {out} is {'a file' if found is None else found}, not a directory;"
            " nothing was written",
            hint="--out takes a directory: the configuration's files are written into it",
        )


def check_out_apart(out: Path, paths: Sequence[Path]) -> None:
    """``io-error`` if ``out`` is, or is inside, the configuration at ``paths`` (default
    ``configs``): writing there would overwrite the files read, or add a second copy of
    every share that the next read of the configuration would find."""
    root = _common_root(paths)
    here = Path(os.path.abspath(out)).resolve()
    if here == root or root in here.parents:
        raise FileIOError(
            f"--out {out} is {'the' if here == root else 'inside the'} configuration read"
            f" ({root}); nothing was searched or written",
            hint="give --out a directory outside the configuration, such as tuned/",
        )


def check_writable(out: Path) -> None:
    """``io-error`` unless a directory can be made at ``out`` (missing) or files written in it
    (a directory): checked by trying, and leaving nothing behind."""
    here = Path(os.path.abspath(out))
    base = here
    while not base.exists() and base != base.parent:
        base = base.parent
    try:
        if base == here:
            fd, probe = tempfile.mkstemp(prefix=".quotactl-", dir=here)
            os.close(fd)
            os.unlink(probe)
        else:
            os.rmdir(tempfile.mkdtemp(prefix=".quotactl-", dir=base))
    except OSError as exc:
        raise FileIOError(
            f"--out {out} cannot be written ({exc.strerror or exc}); nothing was searched",
            hint="give --out a directory you can write, such as tuned/",
        ) from None


def edit_text(text: str, shares: dict[tuple[str, str], ShareSpec]) -> str:
    """``text`` (one config file) with its team shares set as ``shares`` says."""
    yaml = round_trip(like=text)
    document = yaml.load(text)
    if not isinstance(document, dict) or not isinstance(document.get("teams"), list):
        return text
    touched = False
    for team in document["teams"]:
        if not isinstance(team, dict):
            continue
        for share in team.get("shares") or []:
            key = (str(share.get("queue")), str(share.get("name") or team.get("name")))
            spec = shares.get(key)
            if spec is not None:
                touched |= _set(share, spec)
    if not touched:
        return text
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def _set(share: Any, spec: ShareSpec) -> bool:
    changed = False
    capacity = share.get("capacity")
    for itype, count in spec.capacity.items():
        if capacity.get(itype) != count:
            capacity[itype] = count
            changed = True
    sharing = SHARING[spec.strategy]
    if share.get("sharing") != sharing:
        share["sharing"] = sharing
        changed = True
    if spec.strategy is Strategy.LEND_AND_BORROW:
        limit: int | str = "unlimited" if spec.borrow_limit == UNLIMITED else spec.borrow_limit
        current = share.get("borrow_limit", "unlimited")
        if current != limit:
            if "borrow_limit" in share or limit != "unlimited":
                _put_after(share, "borrow_limit", limit, "sharing")
            changed = True
    elif "borrow_limit" in share:
        del share["borrow_limit"]
        changed = True
    return changed


def _put_after(mapping: Any, key: str, value: object, after: str) -> None:
    """Set ``key``; a new key goes right after ``after`` (where a person would write it)."""
    if key in mapping:
        mapping[key] = value
        return
    keys = list(mapping)
    if after not in keys:
        after = keys[-1]
    mapping.insert(keys.index(after) + 1, key, value)
    if after == keys[-1]:
        _hand_on_comments(mapping, after, key)


def _hand_on_comments(mapping: Any, last: str, new: str) -> None:
    """The comment lines below what was the mapping's last key now follow ``new``: ruamel
    keeps them with the last key, so a key added after it would land below them."""
    entry = mapping.ca.items.get(last)
    token = entry[2] if entry and len(entry) > 2 else None
    if token is None:
        return
    own, newline, following = token.value.partition("\n")
    if not following:
        return
    token.value = own + newline
    moved = copy.copy(token)
    moved.value = newline + following
    mapping.ca.items[new] = [None, None, moved, None]


def _common_root(paths: Sequence[Path]) -> Path:
    dirs = [p.resolve() if p.is_dir() else p.resolve().parent for p in paths or [Path("configs")]]
    return Path(os.path.commonpath(dirs))
