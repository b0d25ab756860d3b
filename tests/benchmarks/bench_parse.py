"""What reading 10,000 jobs costs in the client, part by part: parsing, the request path, status.

    python tests/benchmarks/bench_parse.py [--jobs 10000] [--runs 7] [--state FILE]

On ``bench_status.py``'s queue (20 shares, 10,000 jobs, most RUNNABLE) behind ``quotactl local
serve``, in this process, each figure the median of RUNS (CPU seconds of this process, and
wall seconds; the server runs on the other core):

- **parse**: the raw ListServiceJobs pages of the RUNNABLE jobs (a page per 100), read once,
  then parsed by botocore's rest-json parser, by quotactl's (``quotactl/aws/parser.py``) and
  by ``json.loads`` alone;
- **status's reads** (``LiveReader.read_queues``, what ``quotactl status`` sends: 256 calls at
  10,000 jobs) through two clients of quotactl's session, one given botocore's own parser
  back, in alternating runs;
- **the same listing three ways**, share by share on one thread: through botocore's client
  (as quotactl sends it); through botocore's serializer, request signer and HTTP session
  called directly (no per-call events, endpoint rules or retries) with quotactl's parser;
  and through ``http.client`` with botocore's SigV4 signer and ``json.loads``. The last two
  are not how quotactl reads: they show what botocore's request path costs a call.

Figures only, nothing is asserted. ``--state FILE`` builds the state once and keeps it.
"""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from botocore import parsers
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.serialize import create_serializer

from quotactl.aws.live import LiveReader
from quotactl.aws.parser import RestJsonParser
from quotactl.aws.session import Target, client
from tests.benchmarks.bench_status import served, served_arguments

if TYPE_CHECKING:
    from collections.abc import Callable

QUEUE = "bench"
KEY = "quotactl-bench"


def timed(runs: int, work: Callable[[], object]) -> tuple[float, float]:
    """Median CPU and wall seconds of ``runs`` calls of ``work``."""
    cpus, walls = [], []
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        work()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(cpus), statistics.median(walls)


def batch_client(url: str, *, botocores_parser: bool = False) -> Any:
    """A Batch client of quotactl's session on ``url`` (signed, as over AWS)."""
    made = client(Target("local", Path("unused.db"), endpoint_url=url))
    if botocores_parser:
        made._endpoint._response_parser_factory = parsers.ResponseParserFactory()  # type: ignore[attr-defined]
    return made


def share_names(batch: Any) -> list[str]:
    return [s["quotaShareName"] for s in batch.list_quota_shares(jobQueue=QUEUE)["quotaShares"]]


def filters(share: str) -> list[dict[str, Any]]:
    return [{"name": "QUOTA_SHARE_NAME", "values": [share]}]


def raw_pages(batch: Any, shares: list[str]) -> list[dict[str, Any]]:
    """The response dicts of every RUNNABLE page, as botocore hands them to its parser."""
    pages: list[dict[str, Any]] = []
    batch.meta.events.register(
        "before-parse.batch.ListServiceJobs",
        lambda response_dict, **_: pages.append(dict(response_dict)),
    )
    listing = batch.get_paginator("list_service_jobs")
    for share in shares:
        for _ in listing.paginate(jobQueue=QUEUE, jobStatus="RUNNABLE", filters=filters(share)):
            pass
    return pages


def through_client(batch: Any, shares: list[str]) -> int:
    listing = batch.get_paginator("list_service_jobs")
    return sum(
        len(page["jobSummaryList"])
        for share in shares
        for page in listing.paginate(jobQueue=QUEUE, jobStatus="RUNNABLE", filters=filters(share))
    )


def paged(call: Callable[[dict[str, Any]], dict[str, Any]], shares: list[str]) -> int:
    """Every RUNNABLE job, share by share, one page after another through ``call``."""
    jobs = 0
    for share in shares:
        params: dict[str, Any] = {"jobQueue": QUEUE, "jobStatus": "RUNNABLE"}
        params["filters"] = filters(share)
        while True:
            out = call(params)
            jobs += len(out["jobSummaryList"])
            if not out.get("nextToken"):
                break
            params = {**params, "nextToken": out["nextToken"]}
    return jobs


def botocore_pieces(batch: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """ListServiceJobs through botocore's serializer, signer and HTTP session, nothing else."""
    operation = batch.meta.service_model.operation_model("ListServiceJobs")
    serializer = create_serializer("rest-json", include_validation=False)
    parser = RestJsonParser()
    endpoint = batch.meta.endpoint_url.rstrip("/")

    def call(params: dict[str, Any]) -> dict[str, Any]:
        wire = serializer.serialize_to_request(params, operation)
        request = AWSRequest(
            method=wire["method"],
            url=endpoint + wire["url_path"],
            data=wire["body"],
            headers=wire["headers"],
        )
        batch._request_signer.sign("ListServiceJobs", request)
        response = batch._endpoint.http_session.send(request.prepare())
        parsed = {"body": response.content, "headers": response.headers, "status_code": 200}
        return parser.parse(parsed, operation.output_shape)  # type: ignore[no-any-return]

    return call


def bare_http(url: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """ListServiceJobs through ``http.client``, botocore's SigV4 signer and ``json.loads``."""
    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port)
    signer = SigV4Auth(Credentials(KEY, KEY), "batch", "us-east-1")

    def call(params: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps(params).encode()
        request = AWSRequest(
            method="POST",
            url=f"{url}/v1/listservicejobs",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        signer.add_auth(request)
        connection.request("POST", "/v1/listservicejobs", body, dict(request.headers.items()))
        response = connection.getresponse()
        out: dict[str, Any] = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{response.status}: {out}")
        return out

    return call


def main(argv: list[str] | None = None) -> int:
    args = served_arguments(__doc__, argv, runs=7)
    with served(args.state, args.jobs) as url:
        report(url, args.runs)
    return 0


def report(url: str, runs: int) -> None:
    ours, theirs = batch_client(url), batch_client(url, botocores_parser=True)
    shares = share_names(ours)
    pages = raw_pages(batch_client(url), shares)
    output = ours.meta.service_model.operation_model("ListServiceJobs").output_shape
    fast, slow = RestJsonParser(), parsers.RestJSONParser()
    jobs = sum(len(json.loads(p["body"])["jobSummaryList"]) for p in pages)
    print(f"parse: {len(pages)} pages of RUNNABLE jobs ({jobs:,} jobs), CPU median of {runs}")
    for name, parse in (
        ("botocore's parser", lambda: [slow.parse(p, output) for p in pages]),
        ("quotactl's parser", lambda: [fast.parse(p, output) for p in pages]),
        ("json.loads alone", lambda: [json.loads(p["body"]) for p in pages]),
    ):
        print(f"  {name:<34} {timed(runs, parse)[0] * 1000:7.1f} ms")

    print(f"status's reads (read_queues), alternating runs, median of {runs}")
    readers = {
        "quotactl's parser": LiveReader(ours),
        "botocore's parser": LiveReader(theirs),
    }
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in readers}
    for _ in range(runs):
        for name, reader in readers.items():
            figures[name].append(timed(1, reader.read_queues))
    for name, found in figures.items():
        cpu = statistics.median(c for c, _ in found)
        wall = statistics.median(w for _, w in found)
        print(f"  {name:<34} CPU {cpu:5.3f} s  wall {wall:5.3f} s")
    for reader in readers.values():
        reader.close()

    print(f"the RUNNABLE jobs listed share by share on one thread, median of {runs}")
    for name, listing in (
        ("botocore's client, botocore's parser", lambda: through_client(theirs, shares)),
        ("botocore's client, quotactl's parser", lambda: through_client(ours, shares)),
        ("botocore's pieces, quotactl's parser", lambda: paged(botocore_pieces(ours), shares)),
        ("http.client, SigV4, json.loads", lambda: paged(bare_http(url), shares)),
    ):
        cpu, wall = timed(runs, listing)
        print(f"  {name:<38} CPU {cpu:5.3f} s  wall {wall:5.3f} s")


if __name__ == "__main__":
    sys.exit(main())
