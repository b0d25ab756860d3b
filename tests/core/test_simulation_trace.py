"""Reading, writing and generating traces: what a user feeds ``quotactl simulate``."""

from __future__ import annotations

import io
from itertools import islice

import pytest

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import generate_trace, read_trace, workloads, write_trace
from quotactl.errors import TraceError

G5 = "ml.g5.12xlarge"
P5 = "ml.p5.48xlarge"


def rows(text: str) -> list[tuple[object, ...]]:
    return list(read_trace(io.StringIO(text), "trace.csv"))


def test_csv_rows_carry_types_defaults_and_their_line_numbers() -> None:
    text = (
        "submit_time,share,instance_type,count,duration,priority,name\n"
        "0,nlp,ml.p5.48xlarge,2,3600,5,pretrain\n"
        "\n"
        "12.5,training/vision,ml.g5.12xlarge,1,60.5,,\n"
    )
    assert rows(text) == [
        (0.0, "nlp", P5, 2, 3600.0, 5, "pretrain", 2),
        (12.5, "training/vision", G5, 1, 60.5, 0, "", 4),
    ]


def test_quoted_fields_follow_csv_rules() -> None:
    text = 'submit_time,share,instance_type,count,duration,name\n0,nlp,ml.g5.12xlarge,1,10,"a, b"\n'
    assert rows(text) == [(0.0, "nlp", G5, 1, 10.0, 0, "a, b", 2)]


def test_columns_may_come_in_any_order_and_optional_ones_may_be_absent() -> None:
    text = "share,count,duration,instance_type,submit_time\nnlp,1,10,ml.g5.12xlarge,3\n"
    assert rows(text) == [(3.0, "nlp", G5, 1, 10.0, 0, "", 2)]


def test_json_lines_are_read_the_same_way() -> None:
    text = (
        '{"submit_time": 0, "share": "nlp", "instance_type": "ml.p5.48xlarge", "count": 2,'
        ' "duration": 3600, "priority": 5, "name": "pretrain"}\n'
        "\n"
        '{"submit_time": 1.5, "share": "nlp", "instance_type": "ml.g5.12xlarge", "count": 1,'
        ' "duration": 10}\n'
    )
    assert list(read_trace(io.StringIO(text), "t.jsonl")) == [
        (0.0, "nlp", P5, 2, 3600.0, 5, "pretrain", 1),
        (1.5, "nlp", G5, 1, 10.0, 0, "", 3),
    ]


HEADER = "submit_time,share,instance_type,count,duration,priority\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "trace.csv:1: the trace is empty"),
        (HEADER + "\n", "trace.csv:2: the trace has a header but no jobs"),
        ("submit_time,share,instance_type,count\n", "trace.csv:1: missing column 'duration'"),
        (HEADER[:-1] + ",priorty\n", "trace.csv:1: unknown column 'priorty'"),
        (HEADER + "0,nlp,ml.p5.48xlarge,2\n", "trace.csv:2: expected 6 fields"),
        (HEADER + "soon,nlp,ml.p5.48xlarge,2,60,0\n", "trace.csv:2: submit_time 'soon' is not"),
        (HEADER + "0,nlp,ml.p5.48xlarge,2.5,60,0\n", "trace.csv:2: count '2.5' is not a whole"),
        (HEADER + "0,nlp,ml.p5.48xlarge,0,60,0\n", "trace.csv:2: count 0 must be at least 1"),
        (HEADER + "0,nlp,ml.p5.48xlarge,1,-5,0\n", "trace.csv:2: duration -5 must be from 0 to"),
        (HEADER + "0,nlp,ml.p5.48xlarge,1,nan,0\n", "trace.csv:2: duration nan must be"),
        (HEADER + "0,nlp,ml.p5.48xlarge,1,5,10000\n", "trace.csv:2: priority 10000 is outside"),
        (HEADER + "0,,ml.p5.48xlarge,1,5,0\n", "trace.csv:2: share is empty"),
        (
            HEADER + "9,nlp,ml.p5.48xlarge,1,5,0\n3,nlp,ml.p5.48xlarge,1,5,0\n",
            "trace.csv:3: submit_time 3 is earlier than the row before (9)",
        ),
    ],
)
def test_a_bad_row_is_reported_with_file_line_and_a_stable_code(text: str, message: str) -> None:
    with pytest.raises(TraceError) as caught:
        rows(text)
    assert caught.value.code == "trace-invalid"
    assert caught.value.message.startswith(message)


def test_a_bad_json_line_names_its_line() -> None:
    text = (
        '{"submit_time": 0, "share": "a", "instance_type": "t", "count": 1, "duration": 1}\n{oops\n'
    )
    with pytest.raises(TraceError, match=r"^t.jsonl:2: not a JSON object"):
        list(read_trace(io.StringIO(text), "t.jsonl"))


def test_written_trace_reads_back() -> None:
    original = [(0.0, "nlp", P5, 2, 3600.0, 5, "a", 0), (7.25, "q/vision", G5, 1, 90.0, 0, "b", 0)]
    out = io.StringIO()
    assert write_trace(original, out) == 2
    back = list(read_trace(io.StringIO(out.getvalue()), "x"))
    assert [r[:7] for r in back] == [
        (0.0, "nlp", P5, 2, 3600.0, 5, "a"),
        (7.2, "q/vision", G5, 1, 90.0, 0, "b"),
    ]


QUEUE = QueueModel(
    "training",
    {P5: 8, G5: 16},
    (
        ShareModel("nlp", {P5: 4}, Strategy.LEND_AND_BORROW, 100, True),
        ShareModel("vision", {P5: 4, G5: 12}, Strategy.LEND_AND_BORROW),
        ShareModel("ranking", {G5: 4}, Strategy.RESERVE),
        ShareModel("retired", {G5: 1}, Strategy.LEND, enabled=False),
    ),
)


def test_generated_trace_is_deterministic_under_a_seed() -> None:
    first = list(generate_trace([QUEUE], 500, seed=3))
    assert first == list(generate_trace([QUEUE], 500, seed=3))
    assert first != list(generate_trace([QUEUE], 500, seed=4))


def test_generated_jobs_are_in_time_order_for_enabled_shares_and_never_misconfigured() -> None:
    generated = list(generate_trace([QUEUE], 3000, seed=1))
    assert len(generated) == 3000
    assert [r[0] for r in generated] == sorted(r[0] for r in generated)
    assert {r[1] for r in generated} == {"nlp", "vision", "ranking"}
    for _, share, itype, count, duration, priority, _, _ in generated:
        limit = QUEUE.share(share).limits[itype]
        assert 1 <= count <= max(1, limit // 2)
        assert 60 <= duration <= 48 * 3600
        assert priority in {0, 5, 10}


def test_generation_streams_and_names_shares_by_queue_when_there_are_several() -> None:
    other = QueueModel("eval", {G5: 2}, (ShareModel("bench", {G5: 2}),))
    stream = generate_trace([QUEUE, other], 10**9, seed=2)  # lazily: a billion is no problem
    head = list(islice(stream, 200))
    assert {r[1] for r in head} <= {
        "training/nlp",
        "training/vision",
        "training/ranking",
        "eval/bench",
    }


def test_drawn_workload_parameters_are_reported_per_share() -> None:
    drawn = workloads([QUEUE], seed=3)
    assert [w.share for w in drawn] == ["nlp", "vision", "ranking"]
    assert all(0.2 <= w.load <= 1.2 and 11 <= w.peak_hour <= 17 for w in drawn)
