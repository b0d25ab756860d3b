"""`quotactl local advance|reset` through the real CLI boundary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.emulator import Emulator

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def test_advance_moves_the_stored_clock(cli: Callable[..., object], tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    with Emulator(state) as emulator:
        before = emulator.now()
    result = cli("--state", str(state), "local", "advance", "1h30m")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert "(+1h30m)" in result.stdout  # type: ignore[attr-defined]
    with Emulator(state) as emulator:
        assert round(emulator.now() - before) == 5400


def test_advance_rejects_a_bad_duration_as_a_usage_error(
    cli: Callable[..., object], tmp_path: Path
) -> None:
    result = cli("--state", str(tmp_path / "s.db"), "local", "advance", "soon")
    assert result.exit_code == 64  # type: ignore[attr-defined]
    assert "invalid duration 'soon'" in result.stderr  # type: ignore[attr-defined]


def test_reset_deletes_the_state(cli: Callable[..., object], tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    Emulator(state).close()
    assert cli("--state", str(state), "local", "reset").exit_code == 0  # type: ignore[attr-defined]
    assert not state.exists()
    again = cli("--state", str(state), "local", "reset")
    assert "nothing to delete" in again.stdout  # type: ignore[attr-defined]
