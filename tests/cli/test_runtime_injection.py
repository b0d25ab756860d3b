"""Commands reach AWS only through the Runtime's connect factory: a test (or an embedder) that
replaces it sees every connection a command makes."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from quotactl import api
from quotactl.cli.app import run
from quotactl.cli.runtime import Runtime

if TYPE_CHECKING:
    from pathlib import Path


def test_status_connects_once_through_the_runtimes_factory(tmp_path: Path, repo_root: Path) -> None:
    state = tmp_path / "state.db"
    quiet = Runtime(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    assert (
        run(
            ["--state", str(state), "apply", str(repo_root / "configs/demo"), "--auto-approve"],
            quiet,
        )
        == 0
    )
    connected: list[dict[str, Any]] = []

    def factory(backend: str, **options: Any) -> api.Account:
        connected.append({"backend": backend, **options})
        return api.connect(backend, **options)

    out = io.StringIO()
    runtime = Runtime(
        stdout=out,
        stderr=io.StringIO(),
        environ={},
        connect_factory=factory,
    )
    assert run(["--state", str(state), "status", "-o", "json"], runtime) == 0
    assert [(c["backend"], c["state"]) for c in connected] == [("local", state)]
    assert runtime.output == "json"
    assert [q["name"] for q in json.loads(out.getvalue())["queues"]] == ["training"]
