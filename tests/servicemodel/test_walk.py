"""The one shape walker finds what a botocore shape refuses, and each rule set changes only
what it says it changes (the wording is its callers', tested with them)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from quotactl.emulator.wire.shapes import service_model
from quotactl.servicemodel.walk import Check, Rules, walk

BATCH = service_model("batch")
SAGEMAKER = service_model("sagemaker")
POLICY = BATCH.shape_for("QuotaSharePolicy")
STOPPING = SAGEMAKER.shape_for("StoppingCondition")
STRATEGY = "idleResourceAssignmentStrategy"


def found(value: Any, shape: Any, rules: Rules | None = None) -> list[tuple[Check, Any]]:
    return [(f.check, f.path) for f in walk(value, shape, rules)]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({STRATEGY: "FIFO"}, []),
        ({STRATEGY: "fifo"}, [(Check.ENUM, (STRATEGY,))]),
        ({STRATEGY: 1}, [(Check.TYPE, (STRATEGY,))]),
        ({"nope": 1}, [(Check.MISSING, ()), (Check.UNKNOWN, ("nope",))]),
        ("policy", [(Check.TYPE, ())]),
    ],
)
def test_each_kind_of_problem_is_found_where_it_is(value: Any, expected: list[Any]) -> None:
    assert found(value, POLICY) == expected


def test_unknown_first_puts_unknown_members_before_missing_ones() -> None:
    assert found({"nope": 1}, POLICY, Rules(unknown_first=True)) == [
        (Check.UNKNOWN, ("nope",)),
        (Check.MISSING, ()),
    ]


def test_lenient_skips_enums_and_unknown_members() -> None:
    assert found({STRATEGY: "fifo", "nope": 1}, POLICY, Rules(lenient=True)) == []


def test_a_map_key_is_checked_as_the_key() -> None:
    (finding,) = walk({"x" * 200: "v"}, BATCH.shape_for("TagrisTagsMap"))
    assert (finding.check, finding.key, finding.path) == (Check.LENGTH, True, ("x" * 200,))


@pytest.mark.parametrize(
    ("value", "wire", "expected"),
    [
        (2**31, True, [Check.RANGE]),  # no max in the model: a Java int on AWS's side
        (2**31, False, []),
        (True, False, [Check.TYPE]),  # true is not a number
    ],
)
def test_wire_rules_add_what_json_on_the_wire_needs(value: Any, wire: bool, expected: Any) -> None:
    request = {"MaxWaitTimeInSeconds": value}
    assert [f.check for f in walk(request, STOPPING, Rules(wire=wire))] == expected


@pytest.mark.parametrize(("wire", "expected"), [(True, [Check.FINITE]), (False, [])])
def test_wire_rules_refuse_an_infinite_number(wire: bool, expected: Any) -> None:
    assert [
        f.check for f in walk(math.inf, BATCH.shape_for("Double"), Rules(wire=wire))
    ] == expected


def test_wire_rules_refuse_a_lone_surrogate() -> None:
    assert found({STRATEGY: "\ud800"}, POLICY, Rules(wire=True)) == [(Check.UNICODE, (STRATEGY,))]


def test_one_per_value_keeps_a_scalars_first_problem() -> None:
    name = SAGEMAKER.shape_for("TrainingJobName")
    assert [f.check for f in walk("!" * 64, name)] == [Check.LENGTH, Check.PATTERN]
    assert [f.check for f in walk("!" * 64, name, Rules(one_per_value=True))] == [Check.LENGTH]


def test_limit_stops_the_walk_once_enough_is_found() -> None:
    value = [{"name": 1, "value": 2}] * 10
    shape = BATCH.shape_for("EnvironmentVariables")
    assert len(walk(value, shape)) == 20
    assert len(walk(value, shape, Rules(limit=3))) == 3
