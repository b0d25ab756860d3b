"""The progress bar: on a terminal it counts candidates and shows the best so far; elsewhere,
and with -q, it draws nothing."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Console

from quotactl.api.tuning import read_rows
from quotactl.config.load import load_config
from quotactl.core.engine import Timing
from quotactl.core.simulate import queue_models
from quotactl.core.tune import Settings, Space, replay, search
from quotactl.render.tune import TuneProgress
from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from pathlib import Path


def _run(tmp_path: Path, console: Console, *, live: bool) -> None:
    desired = load_config([write_config(tmp_path)]).desired
    rows = read_rows(write_trace(tmp_path / "t.csv", days=2))
    progress = TuneProgress(console, 9, "worst-p95", live=live)
    with progress:
        search(
            desired,
            Space.of(desired, "training"),
            Settings(budget=9),
            lambda batch: [replay(tuple(queue_models(d)), rows, "t", Timing()) for d in batch],
            on_trial=lambda trial, best: progress.told(trial, best, f"#{best.index}"),
        )


def test_a_terminal_sees_the_bar_and_the_best_so_far(tmp_path: Path) -> None:
    out = io.StringIO()
    _run(tmp_path, Console(file=out, force_terminal=True, width=100), live=True)
    assert "best worst-p95" in out.getvalue()
    assert "9/9" in out.getvalue()


def test_a_pipe_or_quiet_sees_nothing(tmp_path: Path) -> None:
    out = io.StringIO()
    _run(tmp_path, Console(file=out, force_terminal=True), live=False)
    piped = io.StringIO()
    (tmp_path / "piped").mkdir()
    _run(tmp_path / "piped", Console(file=piped), live=True)
    assert out.getvalue() == ""
    assert piped.getvalue() == ""
