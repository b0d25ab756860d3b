"""Share tags come from ListQuotaShares' own items where the listing carries them.

botocore's model of ``QuotaShareDetail`` has no ``tags``, so its parser drops what AWS's
reference example (and the emulator) sends; quotactl reads them from the raw body instead of
asking ListTagsForResource once per share. An endpoint that lists no tags, or tags that are
not a map of strings, cost the one call per share as before, with the same result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from quotactl.aws.backend import AwsBackend
from quotactl.aws.live import LiveReader
from quotactl.aws.session import Target, client
from quotactl.config import load_config
from quotactl.core.apply.executor import apply
from quotactl.core.plan.diff import make_plan
from tests.aws.test_backend_reads import answer_as_the_model
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from pathlib import Path

CONFIG = """
platform: {name: demo, region: us-east-1}
environments:
  - {name: gpu, capacity: {ml.g5.xlarge: 8}}
queues: [{name: q, environment: gpu}]
teams:
  - name: vision
    tags: {cost-centre: cv-1}
    shares:
      - {queue: q, capacity: {ml.g5.xlarge: 4}, sharing: lend}
  - name: speech
    shares:
      - {queue: q, capacity: {ml.g5.xlarge: 4}, sharing: reserve}
"""


def applied_stack(tmp_path: Path) -> Any:
    """CONFIG applied to a new embedded account in ``tmp_path``; its desired state."""
    (tmp_path / "quotactl.yaml").write_text(CONFIG)
    desired = load_config([tmp_path / "quotactl.yaml"]).desired
    backend = AwsBackend(client(Target("local", tmp_path / "state.db", timing=TEST_TIMING)))
    assert apply(make_plan(desired, backend), backend).ok
    backend.close()
    return desired


def _observe(tmp_path: Path, *, listed: bool) -> tuple[dict[str, Any], int]:
    """Each share's address -> (tags, owning stack); and the ListTagsForResource calls."""
    batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
    if not listed:
        answer_as_the_model(batch)
    return _shares(batch)


def _shares(batch: Any) -> tuple[dict[str, Any], int]:
    backend = AwsBackend(batch)
    observed = backend.observe("demo", ["q"])
    backend.close()
    shares = {
        r.address: (r.spec.tags, r.stack)
        for r in observed.resources
        if r.address.startswith("share.")
    }
    return shares, backend.api.calls["ListTagsForResource"]


def test_a_plan_reads_share_tags_from_the_listing_with_no_call_per_share(
    tmp_path: Path,
) -> None:
    desired = applied_stack(tmp_path)
    listed, calls = _observe(tmp_path, listed=True)
    fallback, fallback_calls = _observe(tmp_path, listed=False)

    assert (calls, fallback_calls) == (0, 2)
    assert listed == fallback
    assert listed["share.q/vision"][0]["cost-centre"] == "cv-1"
    assert {stack for _, stack in listed.values()} == {"demo"}
    batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
    backend = AwsBackend(batch)
    assert make_plan(desired, backend).empty
    assert backend.api.calls["ListTagsForResource"] == 0
    backend.close()


def test_status_reads_the_team_from_the_listed_tags(tmp_path: Path) -> None:
    applied_stack(tmp_path)
    teams = {}
    for listed in (True, False):
        batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))
        if not listed:
            answer_as_the_model(batch)
        with LiveReader(batch) as reader:
            queue = reader.read_queue("q")
            teams[listed] = sorted((s.name, s.team) for s in queue.shares)
            calls = reader.calls["ListTagsForResource"]
        assert calls == (0 if listed else 2)
    assert teams[True] == teams[False] == [("speech", "speech"), ("vision", "vision")]


SCALAR = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
JSON = SCALAR | st.lists(SCALAR, max_size=3) | st.dictionaries(st.text(max_size=5), SCALAR)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("stack")
    applied_stack(tmp_path)
    return tmp_path


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=JSON)
def test_listed_tags_that_are_not_a_map_of_strings_are_read_the_usual_way(
    stack: Path, raw: Any
) -> None:
    """Whatever an endpoint puts in an item's ``tags``, the plan sees the share's real tags:
    a map of strings is taken as the tags, anything else costs one ListTagsForResource."""
    tmp_path = stack
    truth, _ = _observe(tmp_path, listed=False)
    batch = client(Target("local", tmp_path / "state.db", timing=TEST_TIMING))

    def replace(response_dict: dict[str, Any], **_: Any) -> None:
        body = json.loads(response_dict["body"])
        for item in body.get("quotaShares", []):
            item["tags"] = raw
        response_dict["body"] = json.dumps(body).encode()

    batch.meta.events.register_first("before-parse.batch.ListQuotaShares", replace)
    shares, calls = _shares(batch)
    is_map = isinstance(raw, dict) and all(isinstance(v, str) for v in raw.values())
    if is_map:
        assert calls == 0
        assert all(tags == raw for tags, _ in shares.values())
    else:
        assert calls == 2
        assert shares == truth
