"""The streamed ``jobs`` table looks like the rich table it replaced (widths from the first
rows, two spaces between columns, numbers right-aligned, no trailing spaces), and a later row
longer than the first rows' widths is written whole."""

from __future__ import annotations

import io

from hypothesis import given, settings, strategies as st
from rich.table import Table

from quotactl.core.resources.observed import LiveJob
from quotactl.core.states import JobStatus
from quotactl.render.console import make_console, print_trimmed
from quotactl.render.job_table import FIRST_ROWS
from quotactl.render.jobs import job_columns, print_jobs

NOW = 1_800_000_000.0
WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=24)


@st.composite
def jobs(draw: st.DrawFn) -> LiveJob:
    status = draw(st.sampled_from(list(JobStatus)))
    return LiveJob(
        job_id=draw(WORD),
        name=draw(WORD),
        queue=draw(WORD),
        share=draw(st.none() | WORD),
        status=status,
        instances=draw(
            st.dictionaries(
                st.sampled_from(["ml.p5.48xlarge", "ml.g5.xlarge"]), st.integers(1, 64), max_size=2
            )
        ),
        created_at=draw(st.none() | st.floats(NOW - 86_400 * 3, NOW)),
        status_reason=draw(st.none() | st.lists(WORD, max_size=12).map(" ".join)),
        priority=draw(st.none() | st.integers(0, 9999)),
        preemptions=draw(st.none() | st.integers(0, 30)),
    )


def rich_table(rows: list[LiveJob], wide: bool) -> str:
    """The table as rich drew it before: every cell measured, the widest value sets a
    column's width."""
    columns = job_columns(lambda: NOW, wide=wide)
    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in columns:
        table.add_column(column.header, no_wrap=True, justify="right" if column.right else "left")
    for job in rows:
        table.add_row(*(c.cell(job) for c in columns))
    out = io.StringIO()
    console = make_console(out, color=False, width=100_000)
    print_trimmed(console, table, crop=False)
    return out.getvalue()


def streamed(rows: list[LiveJob], wide: bool) -> str:
    out = io.StringIO()
    print_jobs(make_console(out, color=False, width=80), iter(rows), lambda: NOW, wide=wide)
    return out.getvalue()


@settings(max_examples=60, deadline=None)
@given(st.lists(jobs(), min_size=1, max_size=30), st.booleans())
def test_the_streamed_table_is_the_rich_table(rows: list[LiveJob], wide: bool) -> None:
    count = f"{len(rows)} job{'s' if len(rows) != 1 else ''}\n"
    assert streamed(rows, wide) == rich_table(rows, wide) + count


def test_a_later_row_longer_than_the_first_rows_is_written_whole() -> None:
    short = [
        LiveJob(job_id=f"id-{i}", name=f"n{i}", queue="q", share="s", status=JobStatus.RUNNABLE)
        for i in range(FIRST_ROWS)
    ]
    long = LiveJob(
        job_id="id-long", name="a-much-longer-name", queue="q", share="s", status=JobStatus.RUNNING
    )
    lines = streamed([*short, long], wide=True).splitlines()
    assert lines[0].split() == [
        "NAME",
        "JOB",
        "ID",
        "QUEUE/SHARE",
        "STATUS",
        "PRIO",
        "INSTANCES",
        "AGE",
        "PREEMPTED",
        "REASON",
    ]
    assert lines[1].index("id-0") == lines[0].index("JOB ID")
    assert lines[-2].split() == [
        "a-much-longer-name",
        "id-long",
        "q/s",
        "RUNNING",
        "\u2013",
        "\u2013",
        "\u2013",
        "\u2013",
    ]
    assert lines[-1] == f"{FIRST_ROWS + 1} jobs"


def test_no_jobs() -> None:
    assert streamed([], wide=False) == "No service jobs match.\n"
