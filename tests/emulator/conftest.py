"""Emulator fixtures: a real boto3 Batch client, in-process (botocore hook) or over HTTP
against a `quotactl local serve` subprocess started here.

The HTTP server is shared by the tests of one module (one per xdist worker), so every test
names its resources with a unique prefix (``names``) instead of assuming an empty account.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.config import Config

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING
from tests.emulator.emulator_support import Served

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from quotactl.aws.session import Retries

NO_RETRIES: Retries = {"total_max_attempts": 1}


@dataclass
class Account:
    """One emulated account as a test sees it."""

    client: Any
    transport: str
    state: Path

    def advance(self, seconds: float) -> None:
        """`local advance` on the same state file (works for both transports)."""
        with Emulator(self.state, timing=TEST_TIMING) as emulator:
            emulator.advance(seconds)


@pytest.fixture
def names() -> Callable[[str], str]:
    """Unique resource names: the HTTP account is shared by a module's tests."""
    suffix = uuid.uuid4().hex[:8]
    return lambda base: f"{base}-{suffix}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("served") / "state.db")
    yield server
    server.close()


def http_client(url: str, retries: dict[str, Any] | None = None) -> Any:
    session = boto3.Session(
        aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1"
    )
    return session.client(  # type: ignore[call-overload]
        "batch",
        endpoint_url=url,
        config=Config(retries=retries or NO_RETRIES),  # type: ignore[arg-type, unused-ignore]
    )


@pytest.fixture
def inproc(tmp_path: Path) -> Iterator[Account]:
    target = Target(backend="local", state_path=tmp_path / "state.db", timing=TEST_TIMING)
    emulator = Emulator(target.state_path, timing=TEST_TIMING)
    session = make_session(target, emulator=emulator)
    batch = client(target, session=session, retries=NO_RETRIES)
    yield Account(batch, "inproc", target.state_path)
    batch.close()
    emulator.close()


@pytest.fixture(params=["inproc", "http"])
def batch(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Account]:
    """Both transports: the same assertions must hold in-process and over HTTP."""
    if request.param == "inproc":
        yield request.getfixturevalue("inproc")
        return
    server: Served = request.getfixturevalue("served")
    http = http_client(server.url)
    yield Account(http, "http", server.state)
    http.close()
