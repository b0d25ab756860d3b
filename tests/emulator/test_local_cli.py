"""`quotactl local advance|reset` through the real CLI boundary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import payload

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult
    from tests.emulator.conftest import Account


def test_advance_moves_the_stored_clock(cli: Callable[..., object], tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    with Emulator(state, timing=TEST_TIMING) as emulator:
        before = emulator.now()
    result = cli("--state", str(state), "local", "advance", "1h30m")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert "(+1h30m)" in result.stdout  # type: ignore[attr-defined]
    with Emulator(state, timing=TEST_TIMING) as emulator:
        assert round(emulator.now() - before) == 5400


def test_advance_rejects_a_bad_duration_as_a_usage_error(
    cli: Callable[..., object], tmp_path: Path
) -> None:
    result = cli("--state", str(tmp_path / "s.db"), "local", "advance", "soon")
    assert result.exit_code == 64  # type: ignore[attr-defined]
    assert "invalid duration 'soon'" in result.stderr  # type: ignore[attr-defined]


def test_reset_deletes_the_state(cli: Callable[..., object], tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    Emulator(state, timing=TEST_TIMING).close()
    assert cli("--state", str(state), "local", "reset").exit_code == 0  # type: ignore[attr-defined]
    assert not state.exists()
    again = cli("--state", str(state), "local", "reset")
    assert "nothing to delete" in again.stdout  # type: ignore[attr-defined]


def test_reset_at_starts_a_fresh_account_at_that_instant(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    """`local reset --at`: a new account whose clock reads the instant asked for, whatever
    day the test runs."""
    state = tmp_path / "s.db"
    Emulator(state, timing=TEST_TIMING).close()
    result = cli("--state", str(state), "local", "reset", "--at", "2027-03-01T06:30+01:00")
    assert result.exit_code == 0, result.stderr
    assert "Its clock starts at 2027-03-01T05:30:00Z" in result.stdout
    with Emulator(state, timing=TEST_TIMING) as emulator:
        assert emulator.now() == 1803879000.0  # 2027-03-01T05:30:00Z
    moved = cli("--state", str(state), "local", "advance", "1h")
    assert "Clock at 2027-03-01T06:30:00Z" in moved.stdout


def test_reset_at_refuses_a_time_that_is_none(
    cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    result = cli("--state", str(tmp_path / "s.db"), "local", "reset", "--at", "someday")
    assert result.exit_code == 64
    assert "not an ISO 8601 time" in result.stderr


def test_demo_config_lends_idle_capacity_after_local_advance(
    cli: Callable[..., CliResult], inproc: Account, repo_root: Path
) -> None:
    """The quick start: apply configs/demo, submit with boto3, `local advance 10m`: nlp runs
    on more p5s than its own 4 while research (LEND) sits idle."""
    state = str(inproc.state)
    applied = cli("--state", state, "apply", str(repo_root / "configs" / "demo"), "--auto-approve")
    assert applied.exit_code == 0, applied.stderr
    client = inproc.client
    for index in range(6):
        client.submit_service_job(
            jobName=f"nlp-{index}",
            jobQueue="training",
            serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload("ml.p5.48xlarge", 1, max_runtime=3600),
            quotaShareName="nlp",
        )
    advanced = cli("--state", state, "local", "advance", "10m")
    assert advanced.exit_code == 0, advanced.stderr
    running = client.list_service_jobs(
        jobQueue="training",
        jobStatus="RUNNING",
        filters=[{"name": "QUOTA_SHARE_NAME", "values": ["nlp"]}],
    )["jobSummaryList"]
    assert len(running) == 6
    usage = client.get_job_queue_snapshot(jobQueue="training")["queueUtilization"]
    by_share = {
        s["quotaShareName"]: s["capacityUsage"]
        for s in usage["quotaShareUtilization"]["topCapacityUtilization"]
    }
    assert by_share == {"nlp": [{"capacityUnit": "ml.p5.48xlarge", "quantity": 6.0}]}
    research = client.list_service_jobs(
        jobQueue="training", filters=[{"name": "QUOTA_SHARE_NAME", "values": ["research"]}]
    )["jobSummaryList"]
    assert research == []


def test_advance_refuses_to_move_the_clock_past_the_year_3000_and_keeps_it(
    cli: Callable[..., object], tmp_path: Path
) -> None:
    """A huge advance used to commit the new clock, then fail formatting it: every later
    `local advance` then failed too. Now it is refused before anything is written."""
    state = str(tmp_path / "s.db")
    huge = cli("--state", state, "local", "advance", "99999999999d")
    assert huge.exit_code == 64  # type: ignore[attr-defined]
    assert "year 3000" in huge.stderr  # type: ignore[attr-defined]
    assert "error[internal]" not in huge.stderr  # type: ignore[attr-defined]
    after = cli("--state", state, "local", "advance", "1h")
    assert after.exit_code == 0, after.stderr  # type: ignore[attr-defined]
    assert "(+1h)" in after.stdout  # type: ignore[attr-defined]


def test_a_state_path_that_cannot_be_opened_is_an_emulator_state_error(
    cli: Callable[..., object], tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("x")
    for state in (tmp_path, tmp_path / "a-file" / "s.db"):  # a directory; under a file
        result = cli("--state", str(state), "local", "advance", "1m")
        assert result.exit_code == 1  # type: ignore[attr-defined]
        assert "error[emulator-state]" in result.stderr  # type: ignore[attr-defined]
        assert "--state" in result.stderr  # type: ignore[attr-defined]
