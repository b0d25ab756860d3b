"""``tune`` keeps the configuration's schedule windows, budgets and aging in force and varies
none of them: every candidate (and the current configuration) is replayed as ``simulate``
replays it, so the best candidate's figures are those ``simulate`` gives the configuration
``--out`` wrote, which still holds every policy. ``--no-govern`` searches as AWS alone would
run the queue. (The Dask cluster's case is in ``test_executors.py``.)"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl import api
from quotactl.config.load import load_config
from quotactl.core.tune import Settings
from tests.conftest import TEST_TIMING
from tests.tune.support import (
    GOVERNED_PLATFORM,
    GOVERNED_TEAMS,
    TEAMS,
    best_and_simulated,
    write_config,
    write_trace,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.core.resources.desired import DesiredState
    from tests.conftest import CliResult


@pytest.fixture
def governed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    configs = write_config(tmp_path, GOVERNED_TEAMS, platform=GOVERNED_PLATFORM)
    return configs, write_trace(tmp_path / "trace.csv", days=6)  # Monday to Saturday


def _policies(desired: DesiredState) -> tuple[object, ...]:
    return (
        {s.address: s.schedule for s in desired.shares},
        {t.name: t.budget for t in desired.teams},
        {q.name: q.aging for q in desired.queues},
    )


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_best_candidate_replays_as_simulate_replays_the_config_out_wrote(
    cli: Callable[..., CliResult], governed: tuple[Path, Path], tmp_path: Path, workers: str
) -> None:
    configs, trace = governed
    out = tmp_path / "tuned"
    tuned, simulated, best = best_and_simulated(cli, configs, trace, out, "--workers", workers)
    assert tuned == simulated
    # every policy acted in the best candidate's replay, and the search changed a share
    assert set(tuned["governed"]["by_policy"]) == {
        "aging", "budget", "schedule:nights", "schedule:weekend",
    }  # fmt: skip
    assert best["changes"]
    # what --out wrote holds the policies as they were: only shares' settings changed
    written, current = load_config([out]).desired, load_config([configs]).desired
    assert _policies(written) == _policies(current)
    assert written.shares != current.shares


def test_no_govern_searches_as_aws_alone_runs_the_queue(
    cli: Callable[..., CliResult], governed: tuple[Path, Path], tmp_path: Path
) -> None:
    configs, trace = governed
    tuned, simulated, _ = best_and_simulated(
        cli, configs, trace, tmp_path / "tuned", "--workers", "1", govern=False
    )
    assert tuned == simulated
    assert "governed" not in tuned


def test_bad_governing_options_are_refused_before_the_search(
    cli: Callable[..., CliResult], governed: tuple[Path, Path]
) -> None:
    configs, trace = governed
    base = ("tune", str(configs), "--trace", str(trace), "--budget", "2")
    start = cli(*base, "--start", "next tuesday")
    assert start.exit_code == 64, start.stderr
    assert "ISO 8601" in start.stderr
    every = cli(*base, "--govern-every", "0s")
    assert every.exit_code == 64, every.stderr
    assert "--govern-every" in every.stderr


DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@st.composite
def windows(draw: st.DrawFn) -> str:
    """TEAMS with one window on a share: a few days, an hour range (crossing midnight or
    not), and a sharing strategy or a capacity it sets while in force."""
    share = draw(st.sampled_from(["research", "nlp"]))
    days = draw(st.lists(st.sampled_from(DAYS), min_size=1, max_size=3, unique=True))
    begin = draw(st.integers(0, 23))
    end = (begin + draw(st.integers(1, 23))) % 24  # never empty
    if draw(st.booleans()):
        setting = f"sharing: {draw(st.sampled_from(['lend', 'reserve', 'lend_and_borrow']))}"
    else:
        setting = f"capacity: {{ml.p5.48xlarge: {draw(st.integers(2, 14))}}}"
    window = (
        "        schedule:\n"
        "          - name: drawn\n"
        f'            when: {{days: [{", ".join(days)}], hours: "{begin:02}:00-{end:02}:00"}}\n'
        f"            {setting}\n"
    )
    anchor = "        sharing: reserve   # kept for research alone\n"
    if share == "nlp":
        anchor = "        sharing: reserve\n"
        return TEAMS.replace("        sharing: reserve\n", "        sharing: lend\n", 1).replace(
            anchor, anchor + window
        )
    return TEAMS.replace(anchor, anchor.replace("reserve ", "lend    ") + window)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(windows())
def test_tune_replays_the_current_config_with_its_window_as_simulate_does(teams: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        desired = load_config([write_config(Path(folder), teams)]).desired
        trace = write_trace(Path(folder) / "t.csv", days=3)
        # both default to the same start (the next Monday 00:00 UTC) and cadence
        found = api.tune(desired, trace, Settings(budget=1), workers=1, timing=TEST_TIMING)
        simulated = api.simulate(desired, trace, timing=TEST_TIMING)
    assert found.current.result == simulated
