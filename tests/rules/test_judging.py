"""What each check means, on desired states and simulation results built by hand."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.core.resources.desired import (
    DesiredState,
    EnvironmentSpec,
    QueueSpec,
    ShareSpec,
    Strategy,
)
from quotactl.core.rules import (
    Check,
    Level,
    Rule,
    RuleReport,
    RuleVerdict,
    evaluate_disruption,
    evaluate_outcome,
    evaluate_static,
    refusal,
)
from quotactl.core.rules.codec import report_from_json, report_to_json
from quotactl.core.simulate.metrics import ShareResult, SimulationResult, WaitStats

P5, G5 = "ml.p5.48xlarge", "ml.g5.12xlarge"


def state(*shares: ShareSpec) -> DesiredState:
    return DesiredState(
        "s",
        "us-east-1",
        None,
        environments=(EnvironmentSpec("a", {P5: 10, G5: 10}), EnvironmentSpec("b", {P5: 4})),
        queues=(QueueSpec("qa", "a", "qa-quota"), QueueSpec("qb", "b", "qb-quota")),
        shares=shares,
    )


def share(queue: str, name: str, capacity: dict[str, int], **kw: object) -> ShareSpec:
    return ShareSpec(queue, name, capacity, team=str(kw.pop("team", name)), **kw)  # type: ignore[arg-type]


def outcome(rule: Rule, desired: DesiredState) -> RuleVerdict:
    (result,) = evaluate_static([rule], desired)
    return result.outcome


def test_a_teams_capacity_sums_its_shares_across_queues() -> None:
    desired = state(share("qa", "nlp", {P5: 3}), share("qb", "nlp-b", {P5: 2}, team="nlp"))
    at_least = Rule("r", Level.SOFT, Check.MIN_CAPACITY, team="nlp", capacity={P5: 5})
    at_most = Rule("r", Level.SOFT, Check.MAX_CAPACITY, team="nlp", capacity={P5: 4})
    assert outcome(at_least, desired) is RuleVerdict.PASS
    assert outcome(at_most, desired) is RuleVerdict.FAIL
    missing_type = Rule("r", Level.SOFT, Check.MIN_CAPACITY, share="qa/nlp", capacity={G5: 1})
    assert outcome(missing_type, desired) is RuleVerdict.FAIL


def test_capacity_and_reserve_are_judged_per_environment_and_instance_type() -> None:
    desired = state(
        share("qa", "x", {P5: 6, G5: 2}, strategy=Strategy.RESERVE),
        share("qa", "y", {P5: 4}, strategy=Strategy.LEND),
        share("qb", "z", {P5: 4}, strategy=Strategy.RESERVE),
    )
    fits = Rule("r", Level.HARD, Check.CAPACITY_WITHIN_ENVIRONMENT)
    assert outcome(fits, desired) is RuleVerdict.PASS  # a: 10 of 10, b: 4 of 4
    (result,) = evaluate_static(
        [Rule("r", Level.SOFT, Check.MAX_RESERVE_FRACTION, value=60)], desired
    )
    assert result.outcome is RuleVerdict.FAIL
    assert result.message == "more than 60% held RESERVE: b ml.p5.48xlarge: 4 of 4 (100%)"
    over = state(share("qb", "z", {P5: 5}))
    assert outcome(fits, over) is RuleVerdict.FAIL


def test_borrow_limits_and_unlimited() -> None:
    desired = state(
        share("qa", "x", {P5: 1}, strategy=Strategy.LEND_AND_BORROW, borrow_limit=150),
        share("qa", "y", {P5: 1}, strategy=Strategy.LEND_AND_BORROW),
    )
    rule = Rule("r", Level.SOFT, Check.MAX_BORROW_LIMIT, value=200)
    assert outcome(rule, desired) is RuleVerdict.FAIL  # y is unlimited
    assert (
        outcome(
            Rule("r", Level.SOFT, Check.MAX_BORROW_LIMIT, value=200, allow_unlimited=True), desired
        )
        is RuleVerdict.PASS
    )
    assert (
        outcome(
            Rule("r", Level.SOFT, Check.MAX_BORROW_LIMIT, value=100, allow_unlimited=True), desired
        )
        is RuleVerdict.FAIL
    )


def test_required_tags_read_each_shares_tags() -> None:
    desired = state(share("qa", "x", {P5: 1}, tags={"owner": "a"}), share("qa", "y", {P5: 1}))
    (result,) = evaluate_static(
        [Rule("r", Level.ADVISORY, Check.REQUIRED_TAGS, keys=("owner",))], desired
    )
    assert (result.outcome, result.message, result.blocks) == (
        RuleVerdict.FAIL,
        "team y lacks owner",
        False,
    )


def test_levels_and_overrides() -> None:
    rules = [
        Rule(n, level, Check.MAX_DISRUPTION, jobs=0)
        for n, level in (("a", Level.ADVISORY), ("s", Level.SOFT), ("h", Level.HARD))
    ]
    results = evaluate_disruption(rules, 1, overrides=["s", "h"])
    assert [r.outcome for r in results] == [
        RuleVerdict.FAIL,
        RuleVerdict.OVERRIDDEN,
        RuleVerdict.FAIL,
    ]
    assert [r.blocks for r in results] == [False, False, True]
    error = refusal(results)
    assert error is not None
    assert error.code == "rule-failed"
    assert refusal(evaluate_disruption(rules, 0)) is None


def waits(
    share_name: str, team: str, p95: float | None, submitted: int = 1, preemptions: int = 0
) -> ShareResult:
    wait = None if p95 is None else WaitStats(1, p95 / 2, p95 / 2, p95, p95)
    return ShareResult(
        "qa",
        share_name,
        team,
        "LEND",
        submitted,
        1,
        0,
        0,
        wait,
        0.0,
        0.0,
        0.0,
        preemptions,
        preemptions * 1.5,
    )


def test_a_team_waits_as_long_as_its_worst_share_and_adds_up_preemptions() -> None:
    desired = state(share("qa", "x", {P5: 1}, team="t"), share("qa", "y", {P5: 1}, team="t"))
    result = SimulationResult(
        2, 0.0, 0.0, (), (waits("x", "t", 60, preemptions=2), waits("y", "t", 7200, preemptions=2))
    )
    wait = Rule("w", Level.SOFT, Check.MAX_WAIT, team="t", p95=3600)
    lost = Rule("p", Level.SOFT, Check.MAX_PREEMPTIONS, team="t", count=3)
    assert [r.outcome for r in evaluate_outcome([wait, lost], desired, result)] == [
        RuleVerdict.FAIL,
        RuleVerdict.FAIL,
    ]
    never = SimulationResult(1, 0.0, 0.0, (), (waits("x", "t", None),))
    assert evaluate_outcome([wait], desired, never)[0].message.endswith(
        "none of its 1 jobs started"
    )
    nothing = SimulationResult(0, 0.0, 0.0, (), (waits("x", "t", None, submitted=0),))
    assert evaluate_outcome([wait], desired, nothing)[0].outcome is RuleVerdict.PASS
    gone = Rule("g", Level.SOFT, Check.MAX_WAIT, share="qa/zz", p95=1)
    assert (
        evaluate_outcome([gone], desired, result)[0].message == "share qa/zz is not in the config"
    )


RULES = st.builds(
    Rule,
    name=st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True),
    level=st.sampled_from(Level),
    check=st.sampled_from(Check),
    team=st.none() | st.just("nlp"),
    capacity=st.dictionaries(st.sampled_from([P5, G5]), st.integers(1, 99), max_size=2),
    value=st.none() | st.integers(0, 100),
    allow_unlimited=st.booleans(),
    keys=st.lists(st.sampled_from(["owner", "tier"]), max_size=2, unique=True).map(tuple),
    p95=st.none() | st.floats(0, 1e6),
    work_lost=st.none() | st.floats(0, 1e6),
)


@given(rules=st.lists(RULES, max_size=4, unique_by=lambda r: r.name))
@settings(suppress_health_check=[HealthCheck.too_slow])  # rich draws: slow on a loaded machine
def test_a_report_reads_back_as_written(rules: list[Rule]) -> None:
    results = tuple(evaluate_static(rules, state(share("qa", "nlp", {P5: 2})), ["x"]))
    report = RuleReport(tuple(rules), ("x",), results)
    assert report_from_json(report_to_json(report)) == report
