"""``Account``: one AWS account (or the emulator) behind one session and one Batch client.

The three Batch facades share that client (``BatchCalls``: the operations table, the error
translation, the call counters): ``backend`` (``AwsBackend``, what plan and apply read and
write), ``live`` (``LiveReader``, live queues for status and the job commands) and ``jobs``
(``JobsApi``: submit, describe, resolve, terminate). The other services (STS for the account
guard; IAM, S3, SageMaker and CloudWatch Logs for the job commands) come from the same
session, so an assume-role profile asks for MFA once per account object.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal, overload

from quotactl.aws.backend import AwsBackend
from quotactl.aws.calls import BatchCalls
from quotactl.aws.jobs import JobsApi
from quotactl.aws.live import LiveReader
from quotactl.errors import BackendSettingsError

PROBE_CONNECT_TIMEOUT = 2.0
PROBE_READ_TIMEOUT = 5.0
PROBE_ATTEMPTS = 2
"""A probe (a check that may be skipped) waits at most 2 x (2 s + 5 s) for an endpoint."""

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    import boto3
    from mypy_boto3_iam import IAMClient
    from mypy_boto3_logs import CloudWatchLogsClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sagemaker import SageMakerClient

    from quotactl.aws.lock import BatchLockStore
    from quotactl.aws.session import AnySession, Retries, Target
    from quotactl.core.apply.preconditions import Identity
    from quotactl.core.engine import Timing

OtherService = Literal["iam", "s3", "sagemaker", "logs"]


def _ignore(message: str) -> None:
    """The default ``notice``: a library prints nothing."""


class Account:
    """The backend, the live reads and the jobs of one account, over one Batch client."""

    def __init__(
        self,
        target: Target,
        session: boto3.Session | None = None,
        *,
        retries: Retries | None = None,
        notice: Callable[[str], None] = _ignore,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from quotactl.aws.session import botocore_session, client

        self.target = target
        self._session = session
        self._core = botocore_session(target) if session is None else None
        self.notice = notice
        self.batch = BatchCalls(client(target, session=self._base, retries=retries))
        self.live = LiveReader(self.batch, clock=clock)
        self.backend = AwsBackend(self.batch)
        self.jobs = JobsApi(self.batch, live=self.live)

    @property
    def session(self) -> boto3.Session:
        """A boto3 session over this account's botocore session (made when first asked for:
        the Batch client needs none, and boto3's import is not free)."""
        if self._session is None:
            import boto3

            self._session = boto3.Session(botocore_session=self._core)
        return self._session

    @property
    def _base(self) -> AnySession:
        """What this account's clients are built on: the caller's session, else its own."""
        base = self._session or self._core
        assert base is not None
        return base

    @property
    def backend_name(self) -> str:
        """``local`` (the emulator, or an endpoint such as ``local serve``) or ``aws``."""
        return self.target.backend

    @property
    def timing(self) -> Timing:
        """How long the account's jobs are SCHEDULED and STARTING, as its scheduler's model
        assumes: the embedded emulator's setting, else the default (which stands for AWS)."""
        from quotactl.core.engine import TIMING

        return self.target.timing or TIMING

    @property
    def region(self) -> str:
        """The region the Batch client calls."""
        return str(self.batch.client.meta.region_name)

    @property
    def calls(self) -> Counter[str]:
        """Batch API calls made, by operation (pages included)."""
        return self.batch.calls

    def close(self) -> None:
        self.live.close()
        self.batch.close()

    def __enter__(self) -> Account:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def lock_store(self) -> BatchLockStore:
        """Where this account keeps the stack lock."""
        return self.backend.lock_store()

    def reach(self, expected: str | None = None) -> Identity:
        """The account and region calls reach; ``expected`` (``platform.account_id``), when
        set, must be that account on the aws backend (the local emulator's account is fixed)."""
        from quotactl.aws.guard import identity
        from quotactl.aws.session import client
        from quotactl.core.apply.preconditions import check_expected_account

        local = self.target.backend == "local"
        sts = None if local else client(self.target, "sts", session=self._base)
        found = identity(self.target, sts, self.region)
        if expected is not None and local:
            self.notice("quotactl: account guard not checked on the local emulator")
        elif expected is not None:
            check_expected_account(expected, found)
        return found

    @overload
    def client(self, service: Literal["iam"], *, probe: bool = False) -> IAMClient: ...
    @overload
    def client(self, service: Literal["s3"], *, probe: bool = False) -> S3Client: ...
    @overload
    def client(self, service: Literal["sagemaker"], *, probe: bool = False) -> SageMakerClient: ...
    @overload
    def client(self, service: Literal["logs"], *, probe: bool = False) -> CloudWatchLogsClient: ...
    def client(
        self, service: OtherService, *, probe: bool = False
    ) -> IAMClient | S3Client | SageMakerClient | CloudWatchLogsClient:
        """A client of a non-Batch service; only on the aws backend (the emulator has none).
        ``probe``: for a check that may be skipped (submit's pre-flight, doctor), bounded to
        seconds: ``PROBE_CONNECT_TIMEOUT``, ``PROBE_READ_TIMEOUT``, ``PROBE_ATTEMPTS``."""
        import dataclasses

        from quotactl.aws.session import client

        if self.target.backend != "aws":
            raise BackendSettingsError(f"{service} is only reachable on --backend aws")
        target = self.target
        if probe:
            target = dataclasses.replace(
                target,
                connect_timeout=min(target.connect_timeout, PROBE_CONNECT_TIMEOUT),
                read_timeout=min(target.read_timeout, PROBE_READ_TIMEOUT),
                max_attempts=min(target.max_attempts, PROBE_ATTEMPTS),
            )
        return client(target, service, session=self._base)

    def sdk_session(self) -> AbstractContextManager[None]:
        """boto3's default session set to this account's while an SDK builds its clients."""
        from quotactl.aws.session import default_session

        return default_session(self.target, self.session)
