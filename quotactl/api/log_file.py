"""The ``--log`` file of ``apply`` and ``govern``, and the settings records ``usage`` reads.

Both commands append records in one JSON Lines format (``quotactl.core.history.settings``);
``history`` keeps its readings of the shares' settings in the same format beside its ledger
(``LEDGER.settings.jsonl``), and ``usage --history`` reads records from any of these files.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from quotactl.core.history.settings import SettingsRecord

SETTINGS_SUFFIX = ".settings.jsonl"
"""A ledger's companion file: ``history``'s readings of the shares' settings."""


def append_log(path: Path, records: Sequence[Mapping[str, Any]], what: str = "log") -> None:
    """Append ``records`` (one JSON object a line) to ``path``, flushed as they are written,
    so a command stopped half-way has logged what it did and nothing it did not."""
    from quotactl.errors import FileIOError

    if not records:
        return
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
    except OSError as exc:
        raise FileIOError(f"cannot write {what} {path}: {exc.strerror or exc}") from exc


def check_appendable(path: Path, what: str = "log") -> None:
    """Raise ``file-io`` unless ``path`` can be opened for appending (it is created empty when
    missing): checked before a command changes anything it would then fail to log."""
    from quotactl.core.files import check_writable
    from quotactl.errors import FileIOError

    check_writable(path, what)
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise FileIOError(f"cannot write {what} {path}: {exc.strerror or exc}") from exc


def companion(ledger: Path) -> Path:
    """Where ``history`` keeps the shares' settings beside ``ledger``."""
    return ledger.with_name(ledger.name + SETTINGS_SUFFIX)


def read_log_lines(path: Path) -> list[dict[str, Any]] | None:
    """The records of a JSON Lines log, or None when ``path`` is not one (a ledger, or a
    file that cannot be read: the ledger reader says why)."""
    from quotactl.core.history.settings import is_settings_line

    try:
        with path.open(encoding="utf-8") as stream:
            first = next((line for line in stream if line.strip()), None)
            if first is None:
                return [] if path.name.endswith(SETTINGS_SUFFIX) else None
            try:
                head = json.loads(first)
            except ValueError:
                return None
            if not isinstance(head, dict) or not is_settings_line(head):
                return None
            found = [head]
            for line in stream:
                try:
                    value = json.loads(line) if line.strip() else None
                except ValueError:
                    continue  # a line cut short by a writer that was stopped
                if isinstance(value, dict):
                    found.append(value)
            return found
    except (OSError, UnicodeDecodeError):
        return None


def settings_of(paths: Sequence[Path]) -> tuple[list[Path], list[SettingsRecord]]:
    """``paths`` split into ledgers and the settings records of the logs among them and of
    each ledger's companion file (in the order given)."""
    from quotactl.core.history.settings import settings_records

    ledgers: list[Path] = []
    records: list[SettingsRecord] = []
    for path in paths:
        lines = read_log_lines(path)
        if lines is None:
            ledgers.append(path)
            beside = companion(path)
            if beside.exists():
                records += settings_records(read_log_lines(beside) or [])
        else:
            records += settings_records(lines)
    return ledgers, records
