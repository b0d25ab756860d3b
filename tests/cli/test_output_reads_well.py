"""Output that reads as a person would write it: counts agree with their nouns, a kind is said
once, jobs are named, ties keep submission order, no line ends in spaces, no blank first line,
every job of a --count is previewed, options are taken as given or refused, and a markdown
block cannot be broken out of."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from tests.cli.jobs_support import Jobs

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import CliResult


@pytest.fixture
def jobs(cli: Callable[..., CliResult], tmp_path: Path) -> Jobs:
    account = Jobs(cli, tmp_path)
    account.apply()
    return account


def test_one_job_is_one_job(jobs: Jobs) -> None:
    out = jobs.tmp / "one.csv"
    result = jobs.cli(
        "trace", "generate", str(jobs.tmp / "config.yaml"), "--jobs", "1", "--out", str(out)
    )
    assert result.exit_code == 0, result.stderr
    assert "wrote 1 job over" in result.stderr
    jobs.submit("b", 1)
    assert jobs.ok("jobs").stdout.splitlines()[-1] == "1 job"


def _in_share_preemption(jobs: Jobs) -> tuple[str, str]:
    """A job of share a that waits behind its share's own lower-priority job: (low, waiting)."""
    jobs.submit("b", 2)
    (low,) = jobs.submit("a", 2, "--priority", "1", "--name", "low")
    jobs.advance("1s")
    (waiting,) = jobs.submit("a", 1, "--priority", "0", "--name", "urgent")
    jobs.advance()
    return low, waiting


def test_an_in_share_preemption_is_said_once_and_names_its_jobs(jobs: Jobs) -> None:
    low, waiting = _in_share_preemption(jobs)
    preview = jobs.ok("submit", jobs.spec(count=2), "--share", "a", "--priority", "9", "--dry-run")
    assert "placement: preempt" in preview.stdout
    assert "lenders:" not in preview.stdout
    changed = jobs.ok("job", "priority", waiting, "5").stdout
    assert f"low ({low}) of share a (in-share, for it)" in changed
    assert "1 job:" in changed
    jobs.advance()
    for command in ("why", "describe"):
        text = jobs.ok("job", command, low).stdout
        lines = [line for line in text.splitlines() if "by higher-priority" in line]
        assert lines, text
        for line in lines:
            assert line.count("in-share") == 1, line
            assert "urgent" in line


def test_jobs_submitted_together_are_listed_newest_first(jobs: Jobs) -> None:
    """One --count submits its jobs back to back: the emulator gives them createdAt 1 ms
    apart even while its clock stands still, so the newest (sweep-12) is listed first."""
    jobs.submit("b", 1, "--count", "12", "--name", "sweep")
    document = jobs.json("jobs")
    assert [j["name"] for j in document["jobs"]] == [f"sweep-{i}" for i in range(12, 0, -1)]
    lines = jobs.ok("jobs").stdout.splitlines()[1:13]
    assert [line.split()[0] for line in lines] == [f"sweep-{i}" for i in range(12, 0, -1)]


@pytest.mark.parametrize("command", [["jobs"], ["status"], ["status", "--team", "a"]])
def test_no_line_ends_in_spaces_and_the_first_line_says_something(
    jobs: Jobs, command: list[str]
) -> None:
    jobs.submit("a", 1, "--name", "x")
    out = jobs.ok(*command).stdout
    assert out.splitlines()[0].strip(), out
    assert [line for line in out.splitlines() if line != line.rstrip()] == []


def test_a_count_dry_run_previews_every_job(jobs: Jobs) -> None:
    spec = jobs.spec(count=1)
    text = jobs.ok("submit", spec, "--share", "r", "--count", "3", "--dry-run").stdout
    assert "job 1 of 3: placement: own" in text
    assert "job 2 of 3: placement: wait" in text  # r's limit is 1 and it may not borrow
    assert "job 3 of 3: placement: wait" in text
    document = jobs.json("submit", spec, "--share", "r", "--count", "3", "--dry-run")
    assert [j["placement"] for j in document["jobs"]] == ["own", "wait", "wait"]
    assert document["placement"] == "own"


def test_a_repeated_team_shows_each_team(jobs: Jobs) -> None:
    document = jobs.json("status", "--team", "a", "--team", "b")
    (queue,) = document["queues"]
    assert sorted(s["name"] for s in queue["shares"]) == ["a", "b"]


def test_interval_without_watch_is_refused(jobs: Jobs) -> None:
    result = jobs.run("status", "--interval", "2s")
    assert result.exit_code == 64
    assert "error[usage]: --interval is the time between --watch refreshes" in result.stderr


def test_plan_out_creates_no_directory(jobs: Jobs) -> None:
    target = jobs.tmp / "missing" / "deeper" / "plan.json"
    result = jobs.run("plan", str(jobs.tmp / "config.yaml"), "--out", str(target))
    assert result.exit_code == 1
    assert "error[io-error]" in result.stderr
    assert not (jobs.tmp / "missing").exists()


def _fenced(markdown: str) -> tuple[str, str]:
    """The first fenced block's fence and body, read as CommonMark does."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    fence = re.match(r"`+", lines[start]).group(0)  # type: ignore[union-attr]
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == fence)
    return fence, "\n".join(lines[start + 1 : end])


@pytest.mark.parametrize("value", ["```", "a````b", "``` ```` `````"])
def test_a_tag_holding_a_fence_stays_inside_the_markdown_block(jobs: Jobs, value: str) -> None:
    config = jobs.tmp / "config.yaml"
    text = config.read_text().replace(
        "region: us-east-1}", f"region: us-east-1, tags: {{note: {json.dumps(value)}}}}}"
    )
    config.write_text(text)
    markdown = jobs.ok("plan", str(config), "-o", "markdown").stdout
    _, body = _fenced(markdown)
    assert value in body
    assert "Fingerprint" not in body


def _code_span(line: str, after: str) -> str:
    """The code span that follows ``after`` in ``line``, read as CommonMark reads it."""
    rest = line[line.index(after) + len(after) :]
    ticks = re.match(r"`+", rest).group(0)  # type: ignore[union-attr]
    end = next(
        m.start() for m in re.finditer(r"`+", rest[len(ticks) :]) if len(m.group(0)) == len(ticks)
    )
    inner = rest[len(ticks) : len(ticks) + end]
    return inner[1:-1] if inner.startswith(" ") and inner.endswith(" ") and inner.strip() else inner


@pytest.mark.parametrize("name", ["a`b.csv", "``x``.csv", "`lead.csv"])
def test_a_trace_name_holding_backticks_stays_one_code_span(jobs: Jobs, name: str) -> None:
    config = str(jobs.tmp / "config.yaml")
    trace = jobs.tmp / name
    jobs.ok("trace", "generate", config, "--jobs", "5", "--out", str(trace))
    markdown = jobs.ok("simulate", config, "--trace", str(trace), "-o", "markdown").stdout
    title = markdown.splitlines()[0]
    assert _code_span(title, "### quotactl simulate: ") == str(trace)
    compared = jobs.ok(
        "simulate", config, "--trace", str(trace), "--baseline", "reserve", "-o", "markdown"
    ).stdout
    (line,) = [line for line in compared.splitlines() if line.startswith("Replayed")]
    assert _code_span(line, " jobs from ") == str(trace)
