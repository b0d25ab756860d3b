"""Exit codes of every quotactl command (docs/commands.md, "Exit codes")."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a process exit status means.

    ``CHANGES_PRESENT`` follows Terraform's ``-detailed-exitcode`` (2), so usage errors get
    ``EX_USAGE`` (64) from sysexits.h instead of click's default 2: a CI script can tell
    "the plan has changes" from "the command line was wrong".
    """

    OK = 0
    ERROR = 1
    CHANGES_PRESENT = 2
    FILES_WOULD_CHANGE = 3
    """``fmt --check``: some files are not in the canonical layout (``terraform fmt -check``)."""
    SOME_BLOCKED = 4
    """``govern --detailed-exitcode``: some actions were held back (they would disrupt)."""
    USAGE = 64
    INTERRUPTED = 130
