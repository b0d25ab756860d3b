"""A negative number given as a value (``job priority ID -5``, ``local advance -1s``,
``--max-disruption -1``) is that value, refused as out of range; never "no such option"."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from hypothesis import given, settings, strategies as st

from quotactl.cli.app import app, run
from quotactl.cli.argv import hoist_global_options
from quotactl.cli.runtime import Runtime
from quotactl.cli.tree import command_tree

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

JOB = "0b6c0f54-6a0c-4c55-9b8e-6c1c6f0f6a11"
# Each command line with {} where the negative value goes, and the name the error gives it.
PLACES = [
    (["job", "priority", JOB, "{}"], "'N'"),
    (["job", "priority", JOB, "{}", "-o", "json"], "'N'"),
    (["job", "priority", "{}", "5"], None),  # a job named "-5": looked up, not an option
    (["local", "advance", "{}s"], "duration"),
    (["local", "advance", "{}"], "duration"),
    (["apply", "configs/demo", "--max-disruption", "{}"], "--max-disruption"),
    (["apply", "--max-disruption={}", "configs/demo"], "--max-disruption"),
    (["submit", "x.yaml", "--count", "{}"], "'--count'"),
    (["submit", "x.yaml", "--priority", "{}"], "'--priority'"),
    (["trace", "generate", "configs/demo", "--jobs", "{}"], "'--jobs'"),
    (["jobs", "--since", "{}m"], "--since"),
    (["local", "serve", "--port", "{}"], "'--port'"),
]


def _run(args: list[str], state: Path) -> tuple[int, str]:
    err = io.StringIO()
    runtime = Runtime(stdout=io.StringIO(), stderr=err, environ={})
    code = run(["-q", "--state", str(state), *args], runtime)
    return code, err.getvalue()


@settings(max_examples=25, deadline=None)
@given(value=st.integers(min_value=-(10**6), max_value=-1), place=st.sampled_from(PLACES))
def test_a_negative_value_is_a_value(
    tmp_path_factory: pytest.TempPathFactory, value: int, place: tuple[list[str], str | None]
) -> None:
    template, named = place
    args = [a.replace("{}", str(value)) for a in template]
    code, err = _run(args, tmp_path_factory.getbasetemp() / "negative.db")
    assert "no such option" not in err
    if named is None:
        assert (code, f"no service job named '{value}'" in err) == (1, True), err
    else:
        assert (code, err.startswith("error[usage]: "), named in err) == (64, True, True), err


def test_the_negative_value_stays_where_it_was_given() -> None:
    root = command_tree(app, [])
    args = ["job", "priority", JOB, "-5", "-q", "-o", "json"]
    assert hoist_global_options(args, root) == [
        "-q",
        "job",
        "priority",
        "-o",
        "json",
        "--",
        JOB,
        "-5",
    ]
    plain = ["job", "priority", JOB, "5", "-o", "json"]
    assert hoist_global_options(plain, root) == ["job", "priority", "-o", "json", JOB, "5"]
    unknown = ["job", "priority", JOB, "-5", "--bogus"]
    assert hoist_global_options(unknown, root)[-3:] == ["--", JOB, "-5"]
