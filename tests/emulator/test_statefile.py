"""State-file faults are coded errors (``emulator-state``) with the hint that fits, and each
comes back at once: a busy holder after the 1 s busy timeout, everything else without
waiting. Each test drives the real thing: another process holding the write lock, a
damaged page, a zero-byte file, a read-only mount, a full tmpfs, a running `local serve`."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from quotactl.emulator.store.statefile import BUSY_TIMEOUT_S
from quotactl.errors import StateError
from tests.conftest import TEST_TIMING
from tests.emulator.conftest import http_client
from tests.emulator.emulator_support import Served, make_queue, payload
from tests.emulator.mounts import fill, read_only_view, small_tmpfs

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from tests.conftest import CliResult

HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
"""


def quotactl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quotactl", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def assert_state_error(result: CliResult | subprocess.CompletedProcess[str], text: str) -> None:
    code = result.exit_code if hasattr(result, "exit_code") else result.returncode
    assert code == 1, result.stderr
    assert "error[emulator-state]" in result.stderr
    assert text in result.stderr
    assert "internal" not in result.stderr


@contextlib.contextmanager
def lock_holder(state: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds the state file's write lock until the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(state)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        assert process.stdout.readline().strip() == "held"
        yield process
    finally:
        process.stdin.close()
        process.wait(timeout=10)
        process.stdout.close()


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    Emulator(tmp_path / "s.db", timing=TEST_TIMING).close()
    with lock_holder(tmp_path / "s.db") as process:
        yield process


def test_the_busy_timeout_is_short(tmp_path: Path) -> None:
    with (
        Emulator(tmp_path / "s.db", timing=TEST_TIMING) as emulator,
        emulator.store.transaction() as tx,
    ):
        waits_ms = tx.db.execute("PRAGMA busy_timeout").fetchone()[0]
    assert waits_ms == BUSY_TIMEOUT_S * 1000 <= 2000


def test_a_busy_holder_is_a_coded_error_naming_its_pid(
    tmp_path: Path, holder: subprocess.Popen[str], cli: Callable[..., CliResult]
) -> None:
    with (
        Emulator(
            tmp_path / "s.db", timing=TEST_TIMING
        ) as emulator,  # opening needs no lock, a write does
        pytest.raises(StateError, match=rf"locked \(in use by PID {holder.pid}") as caught,
    ):
        emulator.advance(60)
    assert caught.value.hint is not None
    assert "reset" not in caught.value.hint
    result = cli("--state", str(tmp_path / "s.db"), "local", "advance", "1m")
    assert_state_error(result, f"in use by PID {holder.pid}")


def test_a_busy_holder_fails_an_in_process_client_once_not_with_retries(tmp_path: Path) -> None:
    target = Target("local", tmp_path / "s.db", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, timing=TEST_TIMING)
    batch = client(target, session=make_session(target, emulator=emulator))  # standard retries
    sent: list[str] = []
    batch.meta.events.register("before-sign.batch", lambda **kw: sent.append("x"))
    try:
        with lock_holder(target.state_path) as process:
            with pytest.raises(StateError, match=f"PID {process.pid}"):
                batch.create_scheduling_policy(name="p")  # a write: reads need no lock
            assert len(sent) == 1  # one attempt: a locked file is not retried for minutes
    finally:
        batch.close()
        emulator.close()


def realistic_state(path: Path, jobs: int = 40) -> None:
    target = Target("local", path, timing=TEST_TIMING)
    with Emulator(path, timing=TEST_TIMING) as emulator:
        batch = client(target, session=make_session(target, emulator=emulator))
        make_queue(batch, "q", shares={f"s{i}": {} for i in range(4)})
        for i in range(jobs):
            emulator.call(
                "SubmitServiceJob",
                {
                    "jobName": f"j{i}",
                    "jobQueue": "q",
                    "serviceJobType": "SAGEMAKER_TRAINING",
                    "serviceRequestPayload": payload(),
                    "quotaShareName": f"s{i % 4}",
                },
            )
        batch.close()


def opened(path: Path) -> str:
    """ "refused" for the damaged-file error, else what happened instead."""
    try:
        Emulator(path, timing=TEST_TIMING).close()
    except StateError as exc:
        return (
            "refused"
            if "damaged" in exc.message or "not a quotactl" in exc.message
            else exc.message
        )
    return "opened"


def test_a_damaged_page_is_noticed_whichever_page_it_is(tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    realistic_state(state)
    with sqlite3.connect(state) as db:  # every page is in use: none may go unnoticed
        size = db.execute("PRAGMA page_size").fetchone()[0]
        assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    db.close()
    good = state.read_bytes()
    pages = len(good) // size
    assert pages >= 12
    outcomes: dict[int, list[str]] = {}
    for page in range(pages):
        for junk in (bytes(size), random.Random(page).randbytes(size)):
            copy = tmp_path / f"copy{page}.db"
            copy.write_bytes(good[: page * size] + junk + good[(page + 1) * size :])
            outcomes.setdefault(page, []).append(opened(copy))
    assert {page: seen for page, seen in outcomes.items() if seen != ["refused"] * 2} == {}


def test_a_damaged_file_is_a_coded_error_at_the_cli(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    state = tmp_path / "s.db"
    realistic_state(state, jobs=5)
    data = bytearray(state.read_bytes())
    data[4096 * 2 : 4096 * 3] = bytes(4096)
    state.write_bytes(bytes(data))
    result = cli("--state", str(state), "local", "advance", "1m")
    assert_state_error(result, "is damaged")
    assert "local reset" in result.stderr  # a damaged file is the one case worth replacing


def test_a_zero_byte_file_is_refused_not_taken_for_an_empty_account(
    tmp_path: Path, cli: Callable[..., CliResult]
) -> None:
    state = tmp_path / "s.db"
    state.write_bytes(b"")
    with pytest.raises(StateError, match=r"is empty \(0 bytes\)"):
        Emulator(state, timing=TEST_TIMING)
    assert_state_error(cli("--state", str(state), "local", "advance", "1m"), "0 bytes")
    assert state.stat().st_size == 0  # left as found


def test_a_new_state_file_appears_whole(tmp_path: Path) -> None:
    state = tmp_path / "new" / "s.db"
    with Emulator(state, timing=TEST_TIMING) as emulator:
        assert state.stat().st_size > 0
        assert emulator.call("ListSchedulingPolicies", {})["schedulingPolicies"] == []
    assert sorted(p.name for p in state.parent.iterdir()) == ["s.db", "s.db-lock"]


@pytest.mark.slow
def test_a_read_only_state_is_a_coded_error_for_serve_advance_and_apply(
    tmp_path: Path, cli: Callable[..., CliResult], repo_root: Path
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    Emulator(source / "s.db", timing=TEST_TIMING).close()
    with read_only_view(source, tmp_path / "ro") as view:
        state = str(view / "s.db")
        with pytest.raises(StateError, match="read-only filesystem") as caught:
            Emulator(view / "s.db", timing=TEST_TIMING)
        assert caught.value.hint is not None
        assert "writable" in caught.value.hint
        assert_state_error(cli("--state", state, "local", "advance", "1m"), "read-only")
        demo = str(repo_root / "configs" / "demo")
        assert_state_error(cli("--state", state, "apply", demo, "--auto-approve"), "read-only")
        served = quotactl("--state", state, "local", "serve", "--port", "0", timeout=30)
        assert_state_error(served, "read-only")


def test_a_full_disk_is_a_coded_error_that_never_suggests_deleting(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "small", "1m") as small:
        state = small / "s.db"
        emulator = Emulator(state, timing=TEST_TIMING)
        try:
            saved = []
            filler = fill(small)
            failure: StateError | None = None
            tags = {f"k{i}": "v" * 256 for i in range(50)}
            for i in range(100):  # the WAL may still have room for a few writes
                try:
                    emulator.call("CreateSchedulingPolicy", {"name": f"p{i}", "tags": tags})
                except StateError as exc:
                    failure = exc
                    break
                saved.append(f"p{i}")
            assert failure is not None
            assert "no space left" in failure.message
            assert failure.hint is not None
            assert "reset" not in failure.hint
            assert "delete" not in failure.hint
            filler.unlink()
            listed = emulator.call("ListSchedulingPolicies", {})["schedulingPolicies"]
            assert [p["arn"].rsplit("/", 1)[1] for p in listed] == saved
            emulator.call("CreateSchedulingPolicy", {"name": "after"})  # works again
        finally:
            emulator.close()
        with sqlite3.connect(state) as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        db.close()


@pytest.mark.slow
def test_reset_refuses_while_local_serve_uses_the_file(tmp_path: Path) -> None:
    state = tmp_path / "s.db"
    server = Served(state)
    http: Any = http_client(server.url)
    try:
        http.create_scheduling_policy(name="kept")
        refused = quotactl("--state", str(state), "local", "reset")
        assert_state_error(refused, f"in use by PID {server.process.pid}")
        assert "local serve" in refused.stderr
        names = [p["arn"] for p in http.list_scheduling_policies()["schedulingPolicies"]]
        assert [n.rsplit("/", 1)[1] for n in names] == ["kept"]
    finally:
        http.close()
        server.close()
    done = quotactl("--state", str(state), "local", "reset")
    assert done.returncode == 0, done.stderr
    assert not state.exists()


@pytest.mark.slow
def test_a_state_fault_under_local_serve_is_a_500_with_the_reason(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    server = Served(tmp_path / "s.db", stderr=log)
    http: Any = http_client(server.url)
    try:
        with lock_holder(tmp_path / "s.db") as holder:
            with pytest.raises(http.exceptions.ServerException) as caught:
                http.create_scheduling_policy(name="p")
            assert f"locked (in use by PID {holder.pid}" in caught.value.response["message"]
            assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
        assert http.create_scheduling_policy(name="p")["name"] == "p"  # works again
    finally:
        http.close()
        server.close()
    assert log.read_text() == ""


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "is a directory, not a quotactl emulator state file"),
        (lambda p: p.write_text("not a database " * 300), "not a quotactl emulator state file"),
    ],
)
def test_a_path_that_is_no_state_file_is_a_coded_error(
    tmp_path: Path, make: Callable[[Path], object], message: str
) -> None:
    state = tmp_path / "s.db"
    make(state)
    with pytest.raises(StateError, match=message):
        Emulator(state, timing=TEST_TIMING)
