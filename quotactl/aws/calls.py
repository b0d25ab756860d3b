"""The plumbing under ``AwsBackend``: one guarded call path, paginators, a read pool, counters.

Every call goes through ``BatchCalls.call`` or ``pages``, which only allow the operations in
``permissions.OPERATIONS`` (so ``iam-policy`` covers everything quotactl calls) and turn
botocore's exceptions into ``BackendError`` carrying AWS's own message.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from quotactl.aws import listed_tags
from quotactl.aws.permissions import OPERATIONS
from quotactl.errors import (
    AwsCredentialsError,
    AwsRegionError,
    AwsTimeoutError,
    BackendError,
    QuotactlError,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from botocore.client import BaseClient
    from botocore.model import OperationModel
    from mypy_boto3_batch.type_defs import (
        JobQueueDetailTypeDef,
        QuotaShareDetailTypeDef,
        SchedulingPolicyListingDetailTypeDef,
        ServiceEnvironmentDetailTypeDef,
        ServiceJobSummaryTypeDef,
    )

THROTTLING = frozenset(
    {
        "TooManyRequestsException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "RequestLimitExceeded",
        "SlowDown",
    }
)
T = TypeVar("T")
R = TypeVar("R")
DESCRIBE_BATCH = 100
"""DescribeServiceEnvironments, DescribeJobQueues and DescribeSchedulingPolicies take at most
100 names a call."""
READ_CONCURRENCY = 32
"""Reads in flight at once: a status of 10,000 jobs is some 250 calls, and a 1,000-share stack
read from an endpoint that lists shares without their tags 1,000 ListTagsForResource calls."""
_worker = threading.local()


def _mark_worker() -> None:
    _worker.active = True


class BatchCalls:
    """A Batch client behind the operations table, with call counters and a read pool.

    The job commands also put their IAM, S3, SageMaker and CloudWatch Logs clients behind it
    (for the operations table and the error translation; the counters count Batch only)."""

    def __init__(self, client: BaseClient, *, concurrency: int = READ_CONCURRENCY) -> None:
        self.client = client
        self.concurrency = concurrency
        self.calls: Counter[str] = Counter()
        """API calls made, by operation, pages included (for --debug and the benchmark)."""
        self.attempts: Counter[str] = Counter()
        """HTTP requests sent, by operation: calls plus the client's own retries."""
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        events = client.meta.events
        events.register("before-call.batch", self._count_call)
        events.register("request-created.batch", self._count_attempt)
        listed_tags.keep_listed_tags(client)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def _count_call(self, model: OperationModel | None = None, **_: object) -> None:
        with self._lock:
            self.calls[getattr(model, "name", "?")] += 1

    def _count_attempt(self, operation_name: str = "?", **_: object) -> None:
        with self._lock:
            self.attempts[operation_name] += 1

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        method = _method(operation)
        try:
            result: dict[str, Any] = getattr(self.client, method)(**params)
        except Exception as exc:
            raise _translate(exc, operation, self.client) from exc
        return result

    # The listings the plan and the job readers page through, as the Batch stubs' shapes;
    # any other listing is a plain dict.
    @overload
    def pages(
        self,
        operation: Literal["DescribeServiceEnvironments"],
        key: Literal["serviceEnvironments"],
        **params: Any,
    ) -> Iterator[ServiceEnvironmentDetailTypeDef]: ...
    @overload
    def pages(
        self, operation: Literal["DescribeJobQueues"], key: Literal["jobQueues"], **params: Any
    ) -> Iterator[JobQueueDetailTypeDef]: ...
    @overload
    def pages(
        self,
        operation: Literal["ListSchedulingPolicies"],
        key: Literal["schedulingPolicies"],
        **params: Any,
    ) -> Iterator[SchedulingPolicyListingDetailTypeDef]: ...
    @overload
    def pages(
        self, operation: Literal["ListQuotaShares"], key: Literal["quotaShares"], **params: Any
    ) -> Iterator[QuotaShareDetailTypeDef]: ...
    @overload
    def pages(
        self,
        operation: Literal["ListServiceJobs"],
        key: Literal["jobSummaryList"],
        **params: Any,
    ) -> Iterator[ServiceJobSummaryTypeDef]: ...
    @overload
    def pages(self, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]: ...
    def pages(self, operation: str, key: str, **params: Any) -> Iterator[Any]:
        paginator = self.client.get_paginator(_method(operation))
        iterator = iter(paginator.paginate(**params))
        while True:
            try:
                page = next(iterator)
            except StopIteration:
                return
            except Exception as exc:
                raise _translate(exc, operation, self.client) from exc
            items = page.get(key) or []
            if operation == listed_tags.OPERATION:
                listed_tags.attach(page, items)
            yield from items

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``fn`` over ``items`` on the read pool (in order); inline when already on it, so
        that nested use can never deadlock the pool."""
        items = list(items)
        if len(items) <= 1 or getattr(_worker, "active", False):
            return [fn(i) for i in items]
        return list(self._read_pool().map(fn, items))

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """``fn(*args)`` on the read pool, to collect later with ``.result()`` (which raises
        what ``fn`` raised); run at once when already on the pool, as in ``map``."""
        if not getattr(_worker, "active", False):
            return self._read_pool().submit(fn, *args)
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args))
        except Exception as exc:
            done.set_exception(exc)
        return done

    def _read_pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.concurrency, "quotactl-read", initializer=_mark_worker
                )
            return self._pool


def _method(operation: str) -> str:
    if operation not in OPERATIONS:
        raise AssertionError(f"{operation} is not in quotactl.aws.permissions.OPERATIONS")
    from botocore import xform_name

    return xform_name(operation)  # the client's own naming: ListTagsForResource -> list_tags_...


def translate(exc: Exception, operation: str) -> QuotactlError:
    """botocore's exceptions -> BackendError carrying AWS's own message (for callers whose
    AWS calls do not go through ``BatchCalls``, such as the SageMaker SDK's)."""
    return _translate(exc, operation)


def _translate(exc: Exception, operation: str, client: BaseClient | None = None) -> QuotactlError:
    """botocore's exceptions -> BackendError carrying AWS's own message."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectionError as BotoConnectionError,
        ConnectTimeoutError,
        NoCredentialsError,
        NoRegionError,
        ReadTimeoutError,
    )

    endpoint, attempts, read_timeout, connect_timeout = _settings(client)
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        message = str(error.get("Message") or exc.response.get("message") or exc)
        metadata = exc.response.get("ResponseMetadata", {})
        status = int(metadata.get("HTTPStatusCode", 400))
        retryable = code in THROTTLING or status >= 500 or code == "ServerException"
        hint = None
        if "AccessDenied" in code or "not authorized" in message:
            hint = "`quotactl iam-policy` prints the IAM policy quotactl needs"
        if retryable:
            tries = int(metadata.get("RetryAttempts", 0)) + 1
            message += f" ({endpoint} answered HTTP {status} to {_count(tries)})"
            hint = "the service is failing or throttling; try again later (--max-attempts N)"
        return BackendError(f"{operation}: {message}", retryable=retryable, hint=hint)
    if isinstance(exc, NoCredentialsError):
        return AwsCredentialsError(
            "no AWS credentials found",
            hint="set AWS_PROFILE or pass --profile, or use --backend local",
        )
    if isinstance(exc, NoRegionError):
        return AwsRegionError("no AWS region configured", hint="set platform.region or --region")
    if isinstance(exc, ReadTimeoutError | ConnectTimeoutError):
        where = exc.kwargs.get("endpoint_url") or endpoint
        waited = read_timeout if isinstance(exc, ReadTimeoutError) else connect_timeout
        what = "answer" if isinstance(exc, ReadTimeoutError) else "accept a connection"
        return AwsTimeoutError(
            f"{operation}: {where} did not {what} within {waited:g}s ({_count(attempts)})",
            retryable=True,
            hint="check --endpoint-url (AWS_ENDPOINT_URL_BATCH) and the network; raise "
            "--read-timeout / --connect-timeout for a slow link",
        )
    if isinstance(exc, BotoConnectionError):
        return BackendError(
            f"{operation}: {exc} ({_count(attempts)})",
            retryable=True,
            hint="check --endpoint-url (AWS_ENDPOINT_URL_BATCH) and the network; for a "
            "`quotactl local serve` endpoint, is the server still running?",
        )
    if isinstance(exc, BotoCoreError):
        return BackendError(f"{operation}: {exc}")
    raise exc


def _settings(client: BaseClient | None) -> tuple[str, int, float, float]:
    """The endpoint, attempts per call and timeouts ``client`` was built with."""
    meta = getattr(client, "meta", None)
    config = getattr(meta, "config", None)
    retries = getattr(config, "retries", None) or {}
    attempts = int(retries.get("total_max_attempts") or retries.get("max_attempts", 0) + 1)
    return (
        str(getattr(meta, "endpoint_url", None) or "the endpoint"),
        attempts,
        float(getattr(config, "read_timeout", 60) or 60),
        float(getattr(config, "connect_timeout", 60) or 60),
    )


def _count(attempts: int) -> str:
    return f"{attempts} attempt{'s' if attempts != 1 else ''}"
