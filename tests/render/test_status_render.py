"""The status tables from hand-built figures: exact text on a wide and a narrow terminal."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from quotactl.core.status.report import CapacityRow
from quotactl.render.console import make_console
from quotactl.render.status import print_status
from quotactl.render.status_json import number, status_document, status_json
from quotactl.render.status_parts import usage_bar
from tests.render.status_data import report

GOLDEN = Path(__file__).parent / "golden"


def render(width: int) -> str:
    """What a colourless terminal of ``width`` columns shows (trailing blanks dropped)."""
    buffer = io.StringIO()
    print_status(make_console(buffer, color=False, width=width), report())
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


@pytest.mark.parametrize(
    ("width", "golden"),
    [
        (200, "status_wide_200.txt"),  # every column, the head job in its own column
        (72, "status_narrow_72.txt"),  # key figures only; heads listed below the table
        (40, "status_tiny_40.txt"),  # no table fits: one wrapped line per share and type
    ],
)
def test_the_status_view_at_a_terminal_width_is_exactly_the_golden_text(
    width: int, golden: str
) -> None:
    assert render(width) == (GOLDEN / golden).read_text(encoding="utf-8")


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 160])
def test_no_line_is_wider_than_the_terminal_and_no_number_is_cut(width: int) -> None:
    text = render(width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "\u2026" not in text  # nothing ends in an ellipsis
    for figure in ("1.3", "0.7", "borrow-limit"):
        assert figure in text


@pytest.mark.parametrize("width", [40, 72, 100, 120, 160, 200])
def test_the_bar_key_is_printed_exactly_when_the_bar_is(width: int) -> None:
    text = render(width)
    assert ("\u2588 own" in text) == ("USAGE" in text)


@pytest.mark.parametrize(
    ("limit", "in_use", "idle", "bar"),
    [
        (4, 6, 0, "\u2588" * 7 + "\u2593" * 3),  # own 4, borrowed 2
        (4, 1, 3, "\u2588" * 3 + "\u2591" * 7),  # own 1, idle 3 (lends)
        (4, 2, 0, "\u2588" * 5 + "\u00b7" * 5),  # own 2, 2 unused (reserve)
        (100, 1, 99, "\u2588" + "\u2591" * 9),  # a non-empty segment keeps one cell
        (0, 0, 0, ""),
    ],
)
def test_the_usage_bar_splits_the_limit_into_own_borrowed_and_idle(
    limit: int, in_use: int, idle: int, bar: str
) -> None:
    own = min(in_use, limit)
    row = CapacityRow("ml.g5.xlarge", limit, in_use, own, in_use - own, idle, Fraction(0), 0)
    assert usage_bar(row).plain == bar


def test_json_has_exactly_the_documented_shape() -> None:
    document = status_document(report())
    assert set(document) == {"format_version", "at", "queues", "teams", "budgets", "governed"}
    assert document["format_version"] == "1"
    assert document["at"] == "2026-12-01T10:00:00Z"
    (queue,) = document["queues"]
    assert set(queue) == {"name", "capacity", "shares", "borrowing"}
    nlp, ranking, research, vision = queue["shares"]
    assert nlp == {
        "name": "nlp",
        "team": "nlp",
        "sharing": "LEND_AND_BORROW",
        "borrow_limit": 100,
        "in_share_preemption": True,
        "state": "ENABLED",
        "capacity": [
            {
                "instance_type": "ml.p5.48xlarge",
                "limit": 4,
                "in_use": 6,
                "own": 4,
                "borrowed": 2,
                "idle": 0,
                "lent": 0,
                "headroom": 0,
            }
        ],
        "jobs": {"SUBMITTED": 0, "RUNNABLE": 1, "SCHEDULED": 0, "STARTING": 0, "RUNNING": 2},
        "preempted_24h": 1,
        "head": {"job_id": "0b9d", "name": "nlp-big", "wait_code": "borrow-limit"},
    }
    assert (ranking["borrow_limit"], vision["borrow_limit"], vision["state"]) == (
        None,
        -1,
        "DISABLED",
    )
    assert [c["lent"] for c in research["capacity"]] == [0, 1.33]
    assert queue["borrowing"] == [
        {
            "instance_type": "ml.p5.48xlarge",
            "borrower": "nlp",
            "lender": "research",
            "instances": 1.33,
        },
        {
            "instance_type": "ml.p5.48xlarge",
            "borrower": "nlp",
            "lender": "vision-experiments",
            "instances": 0.67,
        },
    ]
    assert document["teams"][1] == {
        "name": "research",
        "capacity": [
            {"instance_type": "ml.g5.12xlarge", "limit": 4, "in_use": 1, "borrowed": 0, "lent": 0},
            {
                "instance_type": "ml.p5.48xlarge",
                "limit": 2,
                "in_use": 0,
                "borrowed": 0,
                "lent": 1.33,
            },
        ],
    }
    assert json.loads(status_json(report())) == document


def test_shares_of_pooled_capacity_are_whole_numbers_when_whole() -> None:
    assert (number(Fraction(2)), number(Fraction(4, 3)), number(Fraction(1, 2))) == (2, 1.33, 0.5)
