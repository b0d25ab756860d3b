"""In-process round trips through boto3 + the emulator, and the emulator's own share.

Run: python tests/benchmarks/bench_emulator.py [calls]

For ListQuotaShares (5 shares) and DescribeServiceJob it reports calls per second through a
real boto3 client with the emulator attached, the same client answered by a canned
before-send hook (botocore's own cost), and the difference: what the emulator adds per call.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from botocore.awsrequest import AWSResponse

from quotactl.aws.session import Target, client, make_session
from quotactl.emulator.hook import _RawBody
from tests.emulator.emulator_support import inprocess_client, make_queue, submit_request

if TYPE_CHECKING:
    from collections.abc import Callable


def rate(call: Any, count: int) -> float:
    """Seconds per call, best of three runs."""
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(count):
            call()
        runs.append((time.perf_counter() - start) / count)
    return min(runs)


def canned_client(body: dict[str, Any]) -> Any:
    target = Target("local", Path("/nonexistent"), endpoint_url="http://127.0.0.1:9")
    session = make_session(target)
    raw = json.dumps(body).encode()

    def answer(request: Any, **_: Any) -> AWSResponse:
        headers = {"Content-Type": "application/json"}
        return AWSResponse(request.url, 200, headers, _RawBody(raw))  # type: ignore[arg-type]

    session.events.register("before-send.batch", answer)  # type: ignore[arg-type]
    return client(target, session=session, retries={"total_max_attempts": 1})


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        emulator, batch = inprocess_client(Path(tmp) / "bench.db")
        make_queue(batch, "bench", shares={f"s{i}": {} for i in range(5)})
        job = batch.submit_service_job(**submit_request("bench", "bench", "s0"))
        for _ in range(4):
            batch.describe_service_job(jobId=job["jobId"])
        cases: dict[str, Callable[[], dict[str, Any]]] = {
            "ListQuotaShares": lambda: batch.list_quota_shares(jobQueue="bench"),
            "DescribeServiceJob": lambda: batch.describe_service_job(jobId=job["jobId"]),
        }
        for name, call in cases.items():
            body = call()
            body.pop("ResponseMetadata")
            canned = canned_client(body)
            method = (
                (lambda c=canned: c.list_quota_shares(jobQueue="bench"))
                if name == "ListQuotaShares"
                else (lambda c=canned: c.describe_service_job(jobId=job["jobId"]))
            )
            full = rate(call, count)
            bare = rate(method, count)
            path = "/v1/" + name.lower()
            raw = json.dumps(_params(name, job["jobId"])).encode()
            direct = statistics.median(
                _time(lambda p=path, r=raw: emulator.handle("POST", p, "", {}, r))
                for _ in range(count)
            )
            print(
                f"{name:20s} {1 / full:8.0f} calls/s through boto3+emulator "
                f"({full * 1e3:.3f} ms); botocore alone {bare * 1e3:.3f} ms; "
                f"emulator adds {(full - bare) * 1e3:.3f} ms/call "
                f"(Emulator.handle alone {direct * 1e3:.3f} ms)"
            )
            canned.close()
        batch.close()
        emulator.close()


def _params(name: str, job_id: str) -> dict[str, Any]:
    return {"jobQueue": "bench"} if name == "ListQuotaShares" else {"jobId": job_id}


def _time(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
