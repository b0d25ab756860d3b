"""``tune -o json`` prints the fields docs/tune.md describes (the comparison inside each
proposal is the document review.md describes, and its rules the ones every command prints)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.test_docs_json import documented_keys, documented_top, printed_keys
from tests.tune.support import write_config, write_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from tests.conftest import CliResult


def test_tune_prints_the_documented_fields(
    cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    configs, trace = write_config(tmp_path), write_trace(tmp_path / "t.csv")
    out = tmp_path / "tuned"
    found = cli(
        "tune", str(configs), "--trace", str(trace), "--budget", "16", "--out", str(out),
        "-o", "json",
    )  # fmt: skip
    assert found.exit_code == 0, found.stderr
    document = json.loads(found.stdout)
    assert document["front"]
    assert document["written"]["changed"] == ["teams/all.yaml"]
    documented = (
        documented_keys("tune.md", '"front"')
        | documented_keys("review.md", '"comparison"')
        | {"rules", "name", "level", "check", "result", "message"}
    )
    assert sorted(set(printed_keys(document)) - documented) == []
    top = documented_top("tune.md", '"front"')
    assert sorted(k for k in top if k not in document) == []
