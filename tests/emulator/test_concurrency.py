"""Several processes on one state file: nothing lost, nothing duplicated, no corruption."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from quotactl.emulator import Emulator
from tests.conftest import TEST_TIMING

if TYPE_CHECKING:
    from pathlib import Path

WORKER = r"""
import json, sys
from pathlib import Path
from quotactl.aws.session import Target, client
sys.path.insert(0, sys.argv[3])
from tests.emulator.emulator_support import payload
target = Target("local", Path(sys.argv[1]))
batch = client(target)
me = sys.argv[2]
for i in range(25):
    batch.create_scheduling_policy(name=f"{me}-p{i}", tags={"n": str(i)})
    arn = f"arn:aws:batch:us-east-1:123456789012:scheduling-policy/{me}-p{i}"
    batch.tag_resource(resourceArn=arn, tags={"updated": "yes"})
    for _ in range(2):  # the retry with the same clientToken must not add a job
        batch.submit_service_job(
            jobName=f"{me}-j{i}", jobQueue="q", serviceJobType="SAGEMAKER_TRAINING",
            serviceRequestPayload=payload(), quotaShareName="a", clientToken=f"{me}-{i}",
        )
print("ok")
"""


@pytest.mark.slow
def test_two_processes_hammering_one_state_file(tmp_path: Path, inproc: object) -> None:
    from tests.emulator.emulator_support import make_queue

    state = inproc.state  # type: ignore[attr-defined]
    make_queue(inproc.client, "q", shares={"a": {"limit": 1}})  # type: ignore[attr-defined]
    here = str(__import__("pathlib").Path(__file__).resolve().parents[2])  # the repo root
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(state), name, here],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("w1", "w2")
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        assert out.strip() == "ok"
    with Emulator(state, timing=TEST_TIMING) as emulator:
        emulator.advance(60)
        policies = emulator.call("ListSchedulingPolicies", {})["schedulingPolicies"]
        by_name = {"jobQueue": "q", "filters": [{"name": "JOB_NAME", "values": ["w*"]}]}
        jobs = emulator.call("ListServiceJobs", by_name)["jobSummaryList"]
        tags = emulator.call(
            "ListTagsForResource",
            {"resourceArn": "arn:aws:batch:us-east-1:123456789012:scheduling-policy/w2-p24"},
        )
    names = sorted(p["arn"].rsplit("/", 1)[1] for p in policies)
    assert names == sorted([f"{w}-p{i}" for w in ("w1", "w2") for i in range(25)] + ["q-quota"])
    expected = sorted(f"{w}-j{i}" for w in ("w1", "w2") for i in range(25))
    assert sorted(j["jobName"] for j in jobs) == expected
    assert tags["tags"] == {"n": "24", "updated": "yes"}
    db = sqlite3.connect(state)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT count(*) FROM jobs").fetchone()[0] == 50
    finally:
        db.close()
