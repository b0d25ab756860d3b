"""Big and strange input: sizes are bounded before anything is read, with a clear message;
files as people's tools write them (a byte-order mark, CRLF, JSON) are read; messages are
quotactl's own words, never a library's."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import CliResult

    Cli = Callable[..., CliResult]

DEMO = str(REPO_ROOT / "configs" / "demo")
MAX_SECONDS = 10 * 366 * 86400  # ten years: the longest duration a trace may hold
MAX_SUBMIT = 100 * 366 * 86400  # a century: the latest submit_time
JOBSPEC = REPO_ROOT / "configs" / "jobs" / "fine-tune.yaml"
LIBRARY_WORDS = ("Value error", "Input should", "<=x<=", "is not one of", "Traceback")
HEADER = "submit_time,share,instance_type,count,duration\n"


@pytest.fixture(autouse=True)
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sparse(path: Path, size: int) -> str:
    """A file of ``size`` bytes that takes no disk space (nothing must read it)."""
    with path.open("wb") as out:
        out.truncate(size)
    return str(path)


@pytest.mark.parametrize(
    ("argv", "what", "limit"),
    [
        (["submit", "{}"], "job spec", "1.0 MiB"),
        (["submit", "{}", "--dry-run"], "job spec", "1.0 MiB"),
        (["validate", "{}"], "config file", "8.0 MiB"),
        (["plan", "{}"], "config file", "8.0 MiB"),
        (["simulate", DEMO, "--trace", "{}"], "trace file", "4.0 GiB"),
        (["simulate", DEMO, "--trace", "trace.csv", "--compare", "{}"], "config file", "8.0 MiB"),
        (["apply", "--plan", "{}", "--auto-approve"], "plan file", "64.0 MiB"),
    ],
)
def test_a_file_over_its_size_limit_is_refused_before_it_is_read(
    argv: list[str], what: str, limit: str, cli: Cli
) -> None:
    Path("trace.csv").write_text(HEADER + "0,training/nlp,ml.p5.48xlarge,1,60\n")
    path = sparse(Path("big.yaml"), 5 * 1024**3)
    result = cli(*[a.replace("{}", path) for a in argv])
    assert result.exit_code == 1, result.stderr
    message = f"error[file-too-large]: {what} {path} is 5.0 GiB; a {what} may be at most {limit}"
    assert message in result.stderr
    assert "alias" not in result.stderr


@pytest.mark.parametrize("command", [["submit"], ["submit", "--dry-run"], ["validate"]])
def test_a_json_file_that_is_no_json_is_a_json_syntax_error(command: list[str], cli: Cli) -> None:
    Path("spec.json").write_text('{"image": "x",\n  "instance_type": ml.g5}\n')
    result = cli(command[0], "spec.json", *command[1:])
    assert result.exit_code == 1
    assert "spec.json:2:20: error: JSON syntax error: Expecting value" in result.stderr
    assert "YAML" not in result.stderr


BAD_VALUES = [
    ["completion", "tcsh"],
    ["status", "-o", "yaml"],
    ["jobs", "-o", "yaml"],
    ["plan", DEMO, "-o", "yaml"],
    ["simulate", DEMO, "--trace", "t.csv", "-o", "yaml"],
    ["submit", str(JOBSPEC), "--count", "0"],
    ["submit", str(JOBSPEC), "--count", "x"],
    ["submit", str(JOBSPEC), "--priority", "10000"],
    ["trace", "generate", DEMO, "--jobs", "0"],
    ["--max-attempts", "99", "status"],
]


@pytest.mark.parametrize("argv", BAD_VALUES, ids=" ".join)
def test_a_bad_value_is_said_in_quotactls_words(argv: list[str], cli: Cli) -> None:
    result = cli(*argv)
    assert result.exit_code == 64, result.stderr
    assert result.stderr.startswith("error[usage]: ")
    assert not [w for w in LIBRARY_WORDS if w in result.stderr], result.stderr


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(min_size=1, max_size=12).filter(lambda t: not t.startswith("-")))
def test_any_bad_output_format_is_said_in_quotactls_words(text: str, cli: Cli) -> None:
    result = cli("status", "-o", text)
    if text in ("text", "json"):
        return
    assert result.exit_code == 64
    assert not [w for w in LIBRARY_WORDS if w in result.stderr], result.stderr


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    column=st.sampled_from(["submit_time", "duration"]),
    value=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(
            [1e300, MAX_SECONDS + 1.0, float(MAX_SECONDS), MAX_SUBMIT + 1.0, float(MAX_SUBMIT)]
        ),
        st.just(0.0),
    ),
)
def test_a_trace_time_beyond_its_limit_is_refused_and_one_within_is_replayed(
    column: str, value: float, cli: Cli
) -> None:
    row = {"submit_time": "0", "duration": "60"}
    row[column] = repr(value)
    Path("t.csv").write_text(
        HEADER + f"{row['submit_time']},training/nlp,ml.p5.48xlarge,1,{row['duration']}\n"
    )
    result = cli("simulate", DEMO, "--trace", "t.csv")
    limit, words = (
        (MAX_SUBMIT, "(a century)") if column == "submit_time" else (MAX_SECONDS, "(ten years)")
    )
    if 0.0 <= value <= limit:
        assert result.exit_code == 0, result.stderr
        assert "inf" not in result.stdout
    else:
        assert result.exit_code == 1
        assert f"error[trace-invalid]: t.csv:2: {column} " in result.stderr
        assert words in result.stderr


@pytest.mark.parametrize("form", ["csv", "jsonl"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_trace_with_a_byte_order_mark_reads_as_without(form: str, newline: str, cli: Cli) -> None:
    if form == "csv":
        rows = [HEADER.strip(), "0,training/nlp,ml.p5.48xlarge,1,3600"]
    else:
        rows = [
            '{"submit_time": 0, "share": "training/nlp", "instance_type": "ml.p5.48xlarge",'
            ' "count": 1, "duration": 3600}'
        ]
    text = newline.join(rows) + newline
    Path("plain.txt").write_bytes(text.encode())
    Path("marked.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    plain = cli("simulate", DEMO, "--trace", "plain.txt")
    marked = cli("simulate", DEMO, "--trace", "marked.txt")
    assert plain.exit_code == 0, plain.stderr
    assert marked.exit_code == 0, marked.stderr
    assert marked.stdout == plain.stdout.replace("plain.txt", "marked.txt")
