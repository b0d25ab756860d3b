"""``api.watch`` refreshes on its clock and keeps the last good view through a failed read;
``render.status_watch.show_watch`` draws each refresh (frames, or one JSON document each)."""

from __future__ import annotations

import io
import itertools
import json
from typing import TYPE_CHECKING, Any

import pytest

from quotactl import api
from quotactl.errors import BackendError, NotFoundError
from quotactl.render.console import make_console
from quotactl.render.status_watch import show_watch
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture(scope="module")
def account(tmp_path_factory: pytest.TempPathFactory) -> Iterator[api.Account]:
    state = tmp_path_factory.mktemp("watch") / "state.db"
    desired = api.load([REPO_ROOT / "configs" / "demo"]).desired
    with api.connect("local", state=state) as connected:
        api.apply(connected, desired, show=lambda _: None, approve=lambda _: None)
        yield connected


def _failing_second_read(
    account: api.Account, error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = account.live.read_queues
    calls = itertools.count()

    def read(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == 1:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(account.live, "read_queues", read)


def test_a_transient_failure_keeps_the_last_view_and_the_next_refresh_recovers(
    account: api.Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failing_second_read(account, BackendError("slow down", retryable=True), monkeypatch)
    slept: list[float] = []
    ticks = itertools.count(1000)
    refreshes = api.watch(
        account, interval=2.0, clock=lambda: float(next(ticks)), sleep=slept.append
    )
    first, failed, recovered = itertools.islice(refreshes, 3)
    assert (first.error, first.changes) == (None, None)
    assert first.report is not None
    assert isinstance(failed.error, BackendError)
    assert (failed.report, failed.refreshed) == (first.report, first.refreshed)
    assert recovered.error is None
    assert recovered.changes is not None
    assert slept == [2.0, 2.0]


def test_a_first_read_that_fails_for_good_raises(
    account: api.Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise NotFoundError("no job queue 'nope'")

    monkeypatch.setattr(account.live, "read_queues", missing)
    with pytest.raises(NotFoundError):
        next(api.watch(account, sleep=lambda _: None))


def test_show_watch_draws_frames_off_a_terminal_and_json_lines_with_json(
    account: api.Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failing_second_read(account, BackendError("slow down", retryable=True), monkeypatch)
    refreshes = list(itertools.islice(api.watch(account, sleep=lambda _: None), 3))
    screen = io.StringIO()
    show_watch(make_console(screen, color=False, width=120), refreshes, interval=5.0)
    drawn = screen.getvalue()
    assert drawn.count("quotactl status --watch") == 3
    assert "refresh failed at" in drawn
    assert "error[aws-error]: slow down" in drawn
    out, err = io.StringIO(), io.StringIO()
    show_watch(make_console(out), refreshes, interval=5.0, json_streams=(out, err))
    documents = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [d["format_version"] for d in documents] == ["1", "1"]
    assert err.getvalue() == "error[aws-error]: slow down\n"
