"""The comparison views, exactly: text for a terminal, markdown for a PR comment.

The comparison is the removed-share scenario of tests/core/test_simulation_compare.py: c and
a race for b's one idle instance; without c, a's third job no longer waits an hour. Every job
runs, so the text has no footnote on jobs not run; one that never started brings it.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import pytest

from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.resources.desired import Strategy
from quotactl.core.simulate import Side, compare, run_both
from quotactl.render.compare import comparison_markdown, print_comparison
from quotactl.render.console import make_console
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from pathlib import Path

    from quotactl.core.simulate import Comparison

P5 = "ml.p5.48xlarge"
A = ShareModel("a", {P5: 2}, Strategy.LEND_AND_BORROW, team="nlp")
B = ShareModel("b", {P5: 1}, Strategy.LEND, team="vision")
C = ShareModel("c", {P5: 2}, Strategy.LEND_AND_BORROW)
TIMES, NONE = "\u00d7", "\u2013"  # as the views print them: multiplication sign, en dash

EXPECTED_TEXT = """\
Compared proposal/ against main/ on 7 jobs from trace.csv: submissions over 60 min.

Queue q: utilisation 100% → 100% (3 <times> ml.p5.48xlarge)
Waits (first start - submit), before → after
share  outcome        p95 wait     mean wait  jobs done  not run
a      gains      60 min → 0 s  20 min → 0 s      3 → 3    0 → 0
b      unchanged     0 s → 0 s     0 s → 0 s      1 → 1    0 → 0
c      removed         0 s → ~       0 s → ~      3 → ~    0 → ~

Preemptions and instance-hours, before → after
share  preemptions  work lost   borrowed       lent
a            0 → 0  0.0 → 0.0  0.0 → 1.0  0.0 → 0.0
b            0 → 0  0.0 → 0.0  0.0 → 0.0  1.0 → 1.0
c            0 → ~    0.0 → ~    1.0 → ~    0.0 → ~
  c: 3 jobs of the trace have no share in the new configuration and were not replayed there

Verdict: the change keeps utilisation at 100%; team nlp gains (p95 wait 60 min → 0 s); no share
loses; share c is removed (3 of its jobs have nowhere to run); no job is preempted
""".replace("<times>", TIMES).replace("~", NONE)

EXPECTED_MARKDOWN = """\
### quotactl what-if: `proposal/` against `main/`

Replayed 7 jobs from `trace.csv` (submissions over 60 min) on both configurations.

**Verdict:** the change keeps utilisation at 100%; team nlp gains (p95 wait 60 min → 0 s); no \
share loses; share c is removed (3 of its jobs have nowhere to run); no job is preempted

| share | outcome | p95 wait | mean wait | jobs done | not run | preemptions | work lost \
(inst-h) | borrowed (inst-h) | lent (inst-h) |
|---|---|--:|--:|--:|--:|--:|--:|--:|--:|
| `q/a` | **gains** | 60 min → 0 s | 20 min → 0 s | 3 → 3 | 0 → 0 | 0 → 0 | 0.0 → 0.0 | 0.0 → \
1.0 | 0.0 → 0.0 |
| `q/b` | unchanged | 0 s → 0 s | 0 s → 0 s | 1 → 1 | 0 → 0 | 0 → 0 | 0.0 → 0.0 | 0.0 → 0.0 | \
1.0 → 1.0 |
| `q/c` | **removed** | 0 s → ~ | 0 s → ~ | 3 → ~ | 0 → ~ | 0 → ~ | 0.0 → ~ | 1.0 → ~ | 0.0 → \
~ |

Queue `q`: utilisation 100% → 100%.

```mermaid
xychart-beta
    title "p95 wait per share: before (bars), after (line)"
    x-axis ["a", "b", "c"]
    y-axis "p95 wait (minutes)" 0 --> 63
    bar [60, 0, 0]
    line [0, 0, 0]
```
""".replace("~", NONE)


@pytest.fixture
def comparison(tmp_path: Path) -> Comparison:
    trace = tmp_path / "trace.csv"
    rows = ["c"] * 3 + ["a"] * 3
    lines = [f"0,{s},{P5},1,3600" for s in rows] + [f"3600,b,{P5},1,3600"]
    trace.write_text("submit_time,share,instance_type,count,duration\n" + "\n".join(lines) + "\n")
    before = Side("main/", (QueueModel("q", {P5: 5}, (A, B, C)),))
    after = Side("proposal/", (QueueModel("q", {P5: 5}, (A, B)),))
    return compare(*run_both(before, after, trace, timing=TEST_TIMING))


def test_text_view_is_exact(comparison: Comparison) -> None:
    out = io.StringIO()
    print_comparison(make_console(out, color=False, width=100), comparison, trace="trace.csv")
    # rich pads a table's title line to the table's width: trailing blanks are not compared
    assert "\n".join(line.rstrip() for line in out.getvalue().split("\n")) == EXPECTED_TEXT


def test_markdown_view_is_exact(comparison: Comparison) -> None:
    assert comparison_markdown(comparison, trace="trace.csv") == EXPECTED_MARKDOWN


FOOTNOTE = """\
not run: jobs that never started (terminated by the queue's runnable timeout, or still waiting
at the replay's horizon); they wait forever (never), and the mean is over the jobs that started
"""


def test_the_not_run_footnote_is_printed_only_when_a_job_did_not_run(tmp_path: Path) -> None:
    """b asks for 2 instances after the change lowers its limit to 1: its job never runs."""
    trace = tmp_path / "trace.csv"
    trace.write_text(f"submit_time,share,instance_type,count,duration\n0,b,{P5},2,60\n")
    b2 = ShareModel("b", {P5: 2}, Strategy.LEND, team="vision")
    before = Side("main/", (QueueModel("q", {P5: 5}, (A, b2)),))
    after = Side("proposal/", (QueueModel("q", {P5: 5}, (A, B)),))
    lowered = compare(*run_both(before, after, trace, timing=TEST_TIMING))
    out = io.StringIO()
    print_comparison(make_console(out, color=False, width=100), lowered, trace="trace.csv")
    text = " ".join(out.getvalue().split())  # the footnote wraps to the table's width
    assert "b loses 0 s → never" in text
    assert " ".join(FOOTNOTE.split()) in text
