"""apply(plan, backend, hooks): AWS's order, waits, concurrency, failures and re-runs.

The backend is ``MemoryBackend``, which refuses out-of-order calls the way AWS does, so a
passing test means the executor really waited and ordered its calls.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from quotactl.core.apply.executor import ApplyOptions, apply
from quotactl.core.apply.hooks import ApplyResult, ChangeOutcome, NullHooks, Status
from quotactl.core.plan.diff import make_plan
from quotactl.core.resources.desired import STACK_TAG, DesiredState
from quotactl.core.resources.observed import Ref
from tests.core.plan_support import MemoryBackend, desired, env, policy, queue, share

if TYPE_CHECKING:
    from quotactl.core.plan.model import Change, Plan

FAST = ApplyOptions(poll_initial=0.001, poll_max=0.005)
BASE = (env(), policy(), queue())


def converge(config: DesiredState, backend: MemoryBackend) -> ApplyResult:
    result = apply(make_plan(config, backend), backend, options=FAST)
    return result


def test_apply_from_empty_creates_everything_then_the_plan_is_empty() -> None:
    backend = MemoryBackend(delay=2)
    config = desired(*BASE, share("nlp"), share("cv"))
    result = converge(config, backend)
    assert result.ok
    assert [o.address for o in result.done] == [
        "environment.gpu",
        "policy.training-quota",
        "queue.training",
        "share.training/cv",
        "share.training/nlp",
    ]
    assert make_plan(config, backend).empty


def test_deleting_a_stack_disables_and_deletes_children_first() -> None:
    backend = MemoryBackend(delay=2)
    backend.seed(*BASE, share("nlp"), share("cv"))
    result = converge(desired(), backend)
    assert result.ok, result.failed
    assert backend.records == {}
    deletes = [address for op, address in backend.calls if op == "delete"]
    assert deletes.index("queue.training") > deletes.index("share.training/nlp")
    assert deletes.index("policy.training-quota") > deletes.index("queue.training")
    assert deletes.index("environment.gpu") > deletes.index("queue.training")
    assert backend.count("disable") == 4  # shares, queue, environment; policies have no state


def test_a_failed_change_skips_its_dependants_but_not_independent_changes() -> None:
    backend = MemoryBackend()
    backend.failures[("create", "queue.training")] = "Priority 5000 is out of range"
    other = (env("gpu2"), policy("inference"), queue("inference", "gpu2"))
    config = desired(*BASE, *other, share("nlp"), share("nlp", "inference"))
    result = converge(config, backend)
    failed = {o.address: o.message for o in result.failed}
    skipped = {o.address: o.message for o in result.skipped}
    assert failed == {"queue.training": "Priority 5000 is out of range"}
    assert skipped == {"share.training/nlp": "queue.training failed"}
    assert backend.spec("share.inference/nlp") is not None
    assert not result.ok


def test_a_call_throttled_past_the_clients_retries_fails_its_change_without_a_second_loop() -> None:
    """Retries are botocore's (one budget per call); apply does not multiply them."""
    backend = MemoryBackend()
    backend.throttles[("create", "share.training/nlp")] = 3
    result = converge(desired(*BASE, share()), backend)
    assert [o.address for o in result.failed] == ["share.training/nlp"]
    assert backend.calls.count(("create", "share.training/nlp")) == 1


def test_a_rerun_adopts_what_an_interrupted_apply_created() -> None:
    backend = MemoryBackend()
    config = desired(*BASE, share(capacity={"ml.g5.xlarge": 2}))
    plan = make_plan(config, backend)
    # The earlier run got as far as creating the queue (and the share, with old settings).
    backend.seed(*BASE, status="CREATING")
    backend.seed(share(capacity={"ml.g5.xlarge": 9}), status="CREATING")
    result = apply(plan, backend, options=FAST)
    assert result.ok, result.failed
    assert backend.count("describe") == 4  # each create found its resource and adopted it
    assert backend.spec("share.training/nlp") == config.shares[0]
    assert make_plan(config, backend).empty


def test_create_refuses_to_take_over_a_resource_it_does_not_own() -> None:
    backend = MemoryBackend()
    plan = make_plan(desired(*BASE), backend)
    backend.seed(queue(tags={STACK_TAG: "other"}))
    result = apply(plan, backend, options=FAST)
    (failed,) = result.failed
    assert failed.address == "queue.training"
    assert "stack 'other'" in (failed.message or "")


def test_moving_a_share_deletes_it_before_creating_it_elsewhere() -> None:
    other = (env("gpu2"), policy("inference"), queue("inference", "gpu2"))
    backend = MemoryBackend()
    backend.seed(*BASE, *other, share())
    result = converge(desired(*BASE, *other, share(queue="inference")), backend)
    assert result.ok
    assert backend.spec("share.training/nlp") is None
    assert backend.spec("share.inference/nlp") is not None
    ops = [(op, a) for op, a in backend.calls if a.startswith("share.")]
    assert ops.index(("delete", "share.training/nlp")) < ops.index(
        ("create", "share.inference/nlp")
    )


def test_changes_wait_for_resources_still_settling_from_an_earlier_run() -> None:
    backend = MemoryBackend(delay=3)
    backend.seed(*BASE)
    backend.seed(queue(), status="CREATING")
    result = converge(desired(*BASE, share()), backend)
    assert result.ok, result.failed


class Recorder(NullHooks):
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def before_change(self, change: Change) -> None:
        self.events.append(("before", change.address))

    def after_change(self, outcome: ChangeOutcome) -> None:
        self.events.append((outcome.status.value, outcome.address))

    def apply_started(self, plan: Plan) -> None:
        self.events.append(("started", str(len(plan.changes))))


def test_hooks_see_each_change_start_once_and_end_once() -> None:
    backend = MemoryBackend()
    backend.seed(*BASE, share("old"))
    recorder = Recorder()
    plan = make_plan(desired(*BASE, share(queue="training")), backend)
    apply(plan, backend, recorder, FAST)
    assert recorder.events[0] == ("started", "2")
    for address in ("share.training/nlp", "share.training/old"):
        mine = [e for e, a in recorder.events if a == address]
        assert mine == ["before", Status.DONE.value]


class SlowBackend(MemoryBackend):
    """Each create takes 50 ms, and we record how many run at once."""

    def __init__(self) -> None:
        super().__init__()
        self.inflight = 0
        self.peak = 0
        self.gauge = threading.Lock()

    def create(self, spec):  # type: ignore[no-untyped-def]
        with self.gauge:
            self.inflight += 1
            self.peak = max(self.peak, self.inflight)
        time.sleep(0.05)
        try:
            return super().create(spec)
        finally:
            with self.gauge:
                self.inflight -= 1


def test_independent_changes_run_concurrently_within_the_bound() -> None:
    backend = SlowBackend()
    backend.seed(*BASE)
    config = desired(*BASE, *(share(f"team{i}") for i in range(20)))
    begin = time.monotonic()
    result = apply(make_plan(config, backend), backend, options=FAST)
    elapsed = time.monotonic() - begin
    assert result.ok
    assert 8 <= backend.peak <= FAST.concurrency
    assert elapsed < 20 * 0.05 / 2  # well under sequential time


def test_a_policy_of_the_wrong_type_is_replaced_with_its_queue_and_shares() -> None:
    backend = MemoryBackend()
    backend.seed(env(), queue(), share())
    backend.seed(policy(), policy_type="fairshare")
    config = desired(*BASE, share())
    result = converge(config, backend)
    assert result.ok, result.failed
    assert [o.action.value for o in result.done if o.action] == ["replace"] * 3
    assert backend.records[Ref.parse("policy.training-quota")].policy_type == "quota_share"
    assert make_plan(config, backend).empty
