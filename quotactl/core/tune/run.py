"""What one ``tune`` run has to show: the search, each proposal as it is drawn, what
``--out`` received and, for ``--report``, the best proposal replayed with timelines.

The search (``TuneResult``) is the core's; a run adds what a reader needs beside it, so one
value holds everything the text, JSON, markdown and HTML views draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from quotactl.errors import WorkInterruptedError

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.rules import RuleResult
    from quotactl.core.simulate import Comparison
    from quotactl.core.tune.diff import Edit
    from quotactl.core.tune.result import Trial, TuneResult


@dataclass(frozen=True)
class WrittenConfig:
    """The files written (relative to ``out``) and, of those, the ones whose text changed."""

    out: Path
    files: tuple[Path, ...]
    changed: tuple[Path, ...]


class Proposal(NamedTuple):
    """A trial of the front with its changes, its comparison against the current
    configuration (as ``simulate --compare`` draws it) and every rule's result on it."""

    trial: Trial
    edits: tuple[Edit, ...]
    comparison: Comparison
    rules: tuple[RuleResult, ...]


@dataclass(frozen=True)
class TuneRun:
    """A tune search as its command shows it: the search, its proposals on ``trace``, the
    configuration written to ``out`` (None: nothing beat the current) and the recording of
    the best against the current for ``--report`` (None: not asked for, or no best)."""

    result: TuneResult
    trace: str
    proposals: tuple[Proposal, ...]
    out: Path | None = None
    written: WrittenConfig | None = None
    recording: Comparison | None = None

    def written_notice(self) -> str | None:
        """The line that says what ``--out`` received (None when no --out was given)."""
        if self.out is None:
            return None
        if self.written is None:
            return f"quotactl: nothing written to {self.out}: no candidate beats the current"
        changed = ", ".join(str(f) for f in self.written.changed) or "none"
        best = self.result.best
        return (
            f"quotactl: wrote candidate {best.index if best else '?'}"
            f" to {self.out} ({len(self.written.files)} files; changed: {changed})"
        )

    def interruption(self) -> WorkInterruptedError | None:
        """The error a run cut short by Ctrl-C ends with, after the best found is shown."""
        if not self.result.interrupted:
            return None
        return WorkInterruptedError(
            f"tune interrupted after {len(self.result.trials)} of {self.result.budget} candidates:"
            " the result above is the best found so far",
            hint="re-run with the same --seed and a larger --budget to search further",
        )
