"""``config/edit.py``: share settings changed in config files, everything else as written."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from quotactl.config.edit import edit_text, write_changed
from quotactl.config.load import load_config
from quotactl.core.resources.desired import UNLIMITED, ShareSpec, Strategy
from tests.conftest import REPO_ROOT

if TYPE_CHECKING:
    from pathlib import Path

CONFIGS = sorted((REPO_ROOT / "configs").rglob("*.yaml"))
P5 = "ml.p5.48xlarge"


def _spec(name: str, n: int, strategy: Strategy, borrow: int = UNLIMITED) -> ShareSpec:
    return ShareSpec("training", name, {P5: n}, strategy, borrow)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_a_share_set_as_it_is_leaves_the_file_byte_for_byte(path: Path) -> None:
    text = path.read_text()
    if "teams:" not in text:
        return
    desired = load_config([path.parent.parent if path.parent.name == "teams" else path.parent])
    same = {(s.queue, s.name): s for s in desired.desired.shares}
    assert edit_text(text, same) == text


def test_values_change_and_comments_stay(tmp_path: Path) -> None:
    text = """\
teams:
- name: research    # the idle one
  shares:
  - queue: training
    capacity: {ml.p5.48xlarge: 8}
    sharing: reserve
# the busy one
- name: nlp
  shares:
  - queue: training
    capacity:
      ml.p5.48xlarge: 8
    sharing: lend_and_borrow
    borrow_limit: 50
"""
    edited = edit_text(
        text,
        {
            ("training", "research"): _spec("research", 4, Strategy.LEND_AND_BORROW, 200),
            ("training", "nlp"): _spec("nlp", 12, Strategy.LEND),
        },
    )
    assert (
        edited
        == """\
teams:
- name: research    # the idle one
  shares:
  - queue: training
    capacity: {ml.p5.48xlarge: 4}
    sharing: lend_and_borrow
    borrow_limit: 200
# the busy one
- name: nlp
  shares:
  - queue: training
    capacity:
      ml.p5.48xlarge: 12
    sharing: lend
"""
    )


def test_write_changed_keeps_the_layout(tmp_path: Path) -> None:
    demo = REPO_ROOT / "configs" / "demo"
    loaded = load_config([demo]).desired
    out = tmp_path / "out"
    written = write_changed([demo], loaded, out)
    assert sorted(str(p) for p in written.files) == sorted(
        str(p.relative_to(demo)) for p in demo.rglob("*.yaml")
    )
    assert written.changed == ()
    for relative in written.files:
        assert (out / relative).read_text() == (demo / relative).read_text()
