"""The ledger round-trips through CSV and JSON Lines, and refuses what it cannot read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.core.history.ledger import (
    COLUMNS,
    Attempt,
    AttemptOutcome,
    merge,
    read_ledger,
    write_ledger,
)
from quotactl.errors import LedgerError

if TYPE_CHECKING:
    from pathlib import Path

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def row(job: str = "j1", attempt: int = 1, **changes: object) -> Attempt:
    values: dict[str, object] = {
        "job_id": job,
        "attempt": attempt,
        "name": "train",
        "queue": "training",
        "share": "nlp",
        "team": "nlp",
        "instance_type": "ml.p5.48xlarge",
        "count": 2,
        "priority": 5,
        "submitted_at": T0,
        "started_at": T0 + timedelta(seconds=35),
        "stopped_at": None,
        "outcome": AttemptOutcome.RUNNING,
    }
    values.update(changes)
    return Attempt(**values)  # type: ignore[arg-type]


times = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
).map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
attempts = st.builds(
    Attempt,
    job_id=st.text("abcdef0123456789-", min_size=1, max_size=12),
    attempt=st.integers(1, 20),
    name=text,
    queue=st.text("abc-_", min_size=1, max_size=8),
    share=st.none() | st.text("abc-_", min_size=1, max_size=8),
    team=st.none() | st.text("abc-_", min_size=1, max_size=8),
    instance_type=st.none() | st.sampled_from(["ml.p5.48xlarge", "ml.g5.12xlarge"]),
    count=st.integers(0, 64),
    priority=st.integers(0, 9999),
    submitted_at=times,
    started_at=st.none() | times,
    stopped_at=st.none() | times,
    outcome=st.sampled_from(list(AttemptOutcome)),
)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(attempts, max_size=6))
def test_a_ledger_reads_back_as_written(tmp_path: Path, suffix: str, rows: list[Attempt]) -> None:
    path = tmp_path / f"ledger{suffix}"
    write_ledger(path, rows)
    assert read_ledger(path) == rows


def test_csv_has_the_documented_header_and_iso_times(tmp_path: Path) -> None:
    path = tmp_path / "ledger.csv"
    write_ledger(path, [row()])
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS)
    assert lines[1] == (
        "j1,1,train,training,nlp,nlp,ml.p5.48xlarge,2,5,"
        "2026-12-01T09:00:00Z,2026-12-01T09:00:35Z,,RUNNING"
    )


def test_merge_replaces_a_changed_row_and_keeps_the_rest() -> None:
    done = row(stopped_at=T0 + timedelta(hours=1), outcome=AttemptOutcome.SUCCEEDED)
    other = row("j2", submitted_at=T0 + timedelta(minutes=1))
    merged = merge([row(), other], [done])
    assert merged == [done, other]
    assert merge(merged, merged) == merged


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("job_id,attempt\n", "the header must be"),
        (",".join(COLUMNS) + "\nj1,x,n,q,s,t,i,1,0,2026-12-01T00:00:00Z,,,RUNNING\n", "attempt"),
        (",".join(COLUMNS) + "\nj1,1,n,q,s,t,i,1,0,2026-12-01T00:00:00Z,,,DONE\n", "outcome"),
        (",".join(COLUMNS) + "\nj1,1,n\n", "3 fields"),
    ],
)
def test_a_malformed_ledger_is_refused_with_its_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "ledger.csv"
    path.write_text(content)
    with pytest.raises(LedgerError, match=message) as caught:
        read_ledger(path)
    assert caught.value.code == "ledger-invalid"
    assert str(path) in caught.value.message


def test_a_jsonl_row_with_an_unknown_column_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    path.write_text('{"job_id": "j1", "extra": 1}\n')
    with pytest.raises(LedgerError, match=r"ledger.jsonl:1: unknown column 'extra'"):
        read_ledger(path)
