"""Where candidates are replayed changes nothing: this process, a local pool of two workers
and a real ``distributed.LocalCluster`` of two workers give the same trials for a seed, and
on the cluster too a candidate is replayed with the configuration's policies in force, as
``simulate`` replays it."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import pytest

from quotactl.api.tuning import tune
from quotactl.config.load import load_config
from quotactl.core.tune import Settings
from quotactl.errors import DaskMissingError, ExecutorError, UsageError
from tests.tune.support import (
    GOVERNED_PLATFORM,
    GOVERNED_TEAMS,
    best_and_simulated,
    write_config,
    write_trace,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from quotactl.core.tune import TuneResult
    from tests.conftest import CliResult

if "CI" in os.environ:
    import distributed  # CI installs the extra: the cluster tests must run there
else:
    distributed = pytest.importorskip("distributed")


def _trials(result: TuneResult) -> list[tuple[str, object]]:
    return [(t.fingerprint, t.result) for t in result.trials]


@pytest.mark.slow
def test_local_pool_and_dask_cluster_give_the_same_search(tmp_path: Path) -> None:
    desired = load_config([write_config(tmp_path)]).desired
    trace = write_trace(tmp_path / "t.csv", days=4)
    settings = Settings(budget=20, seed=5)
    here = tune(desired, trace, settings, workers=1)
    pool = tune(desired, trace, settings, workers=2)
    # two worker processes behind a real scheduler, over TCP as a remote cluster would be
    with distributed.LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        cluster_result = tune(desired, trace, settings, executor=address)
    assert _trials(here) == _trials(pool) == _trials(cluster_result)
    assert len(here.trials) == 20


@pytest.mark.slow
def test_on_a_dask_cluster_the_best_candidate_replays_as_simulate_replays_the_written_config(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    configs = write_config(tmp_path, GOVERNED_TEAMS, platform=GOVERNED_PLATFORM)
    trace = write_trace(tmp_path / "trace.csv", days=6)
    with distributed.LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        protocol="tcp",
        dashboard_address=None,
    ) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        tuned, simulated, _ = best_and_simulated(
            cli, configs, trace, tmp_path / "tuned", "--executor", address
        )
    assert tuned == simulated
    assert tuned["governed"]["actions"] > 0


def test_a_bad_address_and_a_missing_extra_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desired = load_config([write_config(tmp_path)]).desired
    trace = write_trace(tmp_path / "t.csv", days=1)
    with pytest.raises(UsageError, match="dask://HOST:PORT"):
        tune(desired, trace, Settings(budget=2), executor="tcp://localhost:8786")
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(DaskMissingError, match="dask") as missing:
        tune(desired, trace, Settings(budget=2), executor="dask://localhost:8786")
    assert missing.value.hint is not None
    assert "quotactl[dask]" in missing.value.hint


@pytest.mark.slow
def test_an_unreachable_scheduler_is_an_executor_error(tmp_path: Path) -> None:
    desired = load_config([write_config(tmp_path)]).desired
    trace = write_trace(tmp_path / "t.csv", days=1)
    with pytest.raises(ExecutorError, match="cannot reach"):
        tune(desired, trace, Settings(budget=2), executor="dask://127.0.0.1:9")
