"""Small real filesystems for state-file fault tests: a size-capped tmpfs and a read-only
bind mount. Both need root (CAP_SYS_ADMIN); without it the test is skipped with the reason."""

from __future__ import annotations

import contextlib
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def _mount(*args: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a test filesystem needs root")
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"this machine forbids mount {' '.join(args)}: {done.stderr.strip()}")


def _umount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


@contextlib.contextmanager
def small_tmpfs(target: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. "1m") mounted at ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target))
    try:
        yield target
    finally:
        _umount(target)


@contextlib.contextmanager
def read_only_view(source: Path, target: Path) -> Iterator[Path]:
    """``source`` seen read-only at ``target`` (EROFS for every write under it)."""
    target.mkdir(parents=True, exist_ok=True)
    _mount("--bind", str(source), str(target))
    try:
        done = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(target)], capture_output=True, check=False
        )
        if done.returncode != 0:
            pytest.skip(f"this machine forbids a read-only remount: {done.stderr!r}")
        yield target
    finally:
        _umount(target)


def fill(directory: Path) -> Path:
    """Write a file in ``directory`` until its filesystem is full; returns the file."""
    filler = directory / "filler"
    chunk = b"\0" * 4096
    with open(filler, "wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(chunk)
    with contextlib.suppress(OSError), open(directory / "filler-tail", "wb", buffering=0) as out:
        while True:
            out.write(b"\0")
    return filler
