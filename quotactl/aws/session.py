"""The one session factory, the one seam to AWS: real AWS, any Batch endpoint, or the emulator.

Everything above it uses the same boto3 Batch client, so the code path is the same against
AWS, against ``quotactl local serve`` and against the embedded emulator; only the transport
differs. The emulator is attached with ``session.events.register("before-send.batch", ...)``
before any client is built (clients copy the event emitter when they are created).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias, overload

from quotactl.errors import AwsProfileError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    import boto3
    import botocore.session
    from botocore.client import BaseClient
    from botocore.config import _RetryDict
    from mypy_boto3_batch import BatchClient
    from mypy_boto3_iam import IAMClient
    from mypy_boto3_logs import CloudWatchLogsClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sagemaker import SageMakerClient
    from mypy_boto3_sts import STSClient

    from quotactl.core.engine import Timing
    from quotactl.emulator import Emulator

AnySession: TypeAlias = "boto3.Session | botocore.session.Session"
"""What ``client`` builds on: a boto3 session (a caller's) or the botocore session under it."""
Retries: TypeAlias = "_RetryDict"
"""botocore's ``Config(retries=...)``: ``mode``, ``max_attempts``, ``total_max_attempts``."""
Service = Literal["batch", "sts", "iam", "s3", "sagemaker", "logs"]
"""The AWS services quotactl calls (each has its typed client below)."""

DEFAULT_REGION = "us-east-1"
DEFAULT_MAX_ATTEMPTS = 10
"""botocore's standard mode (exponential backoff with jitter, retries 429/5xx/throttling and
timeouts); 10 attempts so an apply rides through a throttling burst instead of failing
half-way. It is the only retry budget: apply does not retry on top of it."""
DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection (botocore's default is 60)."""
DEFAULT_READ_TIMEOUT = 30.0
"""Seconds to wait for an answer on an open connection (botocore's default is 60); every
quotactl call is small, so an endpoint silent this long is not going to answer."""
_DUMMY_KEY = "quotactl-local"


@dataclass(frozen=True)
class Target:
    """Where quotactl's AWS calls go; built by the CLI from the global options."""

    backend: str  # "local" | "aws"
    state_path: Path
    profile: str | None = None
    region: str | None = None
    endpoint_url: str | None = None
    faults: str | None = None
    timing: Timing | None = None
    """The embedded emulator's phase times (None: its default, the model of AWS)."""
    variant: str | None = None
    """The embedded emulator's variant, ``default`` or ``strict`` (None: the state file's)."""
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    max_attempts: int = DEFAULT_MAX_ATTEMPTS

    @property
    def uses_emulator(self) -> bool:
        """True when calls are answered in-process (local backend without --endpoint-url)."""
        return self.backend == "local" and not self.endpoint_url


def emulator_for(target: Target) -> Emulator:
    """The embedded emulator over ``target.state_path`` (with its faults, if any)."""
    from quotactl.core.engine import TIMING
    from quotactl.emulator import Emulator

    return Emulator(
        target.state_path,
        faults=target.faults,
        timing=target.timing or TIMING,
        region=_region(target),
        variant=target.variant,
    )


def make_session(target: Target, *, emulator: Emulator | None = None) -> boto3.Session:
    """A boto3 session for ``target`` (see ``botocore_session``), for what needs boto3 itself:
    an SDK that builds its clients with ``boto3.client``, or a caller that hands one in."""
    import boto3

    return boto3.Session(botocore_session=botocore_session(target, emulator=emulator))


def botocore_session(
    target: Target, *, emulator: Emulator | None = None
) -> botocore.session.Session:
    """The botocore session for ``target``, under every client quotactl builds.

    - local (no endpoint): dummy credentials and nothing from the user's AWS config, with
      the emulator answering every Batch request in-process;
    - local with ``--endpoint-url`` (e.g. ``local serve``): dummy credentials, the endpoint;
    - aws: the standard credential chain, ``--profile`` and ``--region``.

    Commands build their Batch client on it directly: importing boto3 (and, through it,
    s3transfer) costs every command start-up time for nothing boto3 adds to a client. Its
    clients parse rest-json responses with ``quotactl.aws.parser`` (botocore's,
    with each shape's walk built once).
    """
    import botocore.session
    from botocore.exceptions import ProfileNotFound

    if target.backend == "local":
        session = _isolated_botocore_session()
        session.set_credentials(_DUMMY_KEY, _DUMMY_KEY)
        session.set_config_variable("region", _region(target))
        _parse_fast(session)
        if target.uses_emulator:
            from quotactl.emulator.hook import BotocoreHook

            hook = BotocoreHook(emulator or emulator_for(target))
            # a before-send handler returns the response; botocore-stubs types handlers as -> None
            session.register("before-send.batch", hook)  # type: ignore[arg-type]
        return session
    session = botocore.session.Session(profile=target.profile)
    _parse_fast(session)
    if target.region is not None:
        session.set_config_variable("region", target.region)
    try:
        session.get_scoped_config()  # a --profile the config files lack fails here, as in boto3
    except ProfileNotFound as exc:
        raise AwsProfileError(
            f"no AWS profile {exc.kwargs.get('profile')!r} in the AWS config files",
            hint="`aws configure list-profiles` lists them; check --profile and AWS_PROFILE",
        ) from exc
    return session


def _parse_fast(session: botocore.session.Session) -> None:
    from quotactl.aws.parser import ParserFactory

    session.register_component("response_parser_factory", ParserFactory())


@overload
def client(
    target: Target,
    service: Literal["batch"] = "batch",
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> BatchClient: ...
@overload
def client(
    target: Target,
    service: Literal["sts"],
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> STSClient: ...
@overload
def client(
    target: Target,
    service: Literal["iam"],
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> IAMClient: ...
@overload
def client(
    target: Target,
    service: Literal["s3"],
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> S3Client: ...
@overload
def client(
    target: Target,
    service: Literal["sagemaker"],
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> SageMakerClient: ...
@overload
def client(
    target: Target,
    service: Literal["logs"],
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> CloudWatchLogsClient: ...
def client(
    target: Target,
    service: Service = "batch",
    *,
    region: str | None = None,
    retries: Retries | None = None,
    session: AnySession | None = None,
) -> BaseClient:
    """A client for ``service``; ``--endpoint-url`` applies to Batch only and wins over local."""
    import botocore.session
    from botocore import UNSIGNED
    from botocore.config import Config
    from botocore.exceptions import InvalidRegionError

    base: AnySession = session if session is not None else botocore_session(target)
    create: Callable[..., BaseClient]
    if isinstance(base, botocore.session.Session):
        configured = base.get_config_variable("region")
        create = base.create_client
    else:  # a caller's boto3 session: its public client factory, never its private handle
        configured = base.region_name
        create = base.client
    retry_config: Retries = retries or {
        "mode": "standard",
        "total_max_attempts": target.max_attempts,
    }
    endpoint = target.endpoint_url if service == "batch" else None
    chosen_region = region or target.region or configured
    if not chosen_region:
        if target.backend == "aws":  # never a silent default on a real account
            raise UsageError(
                "no AWS region for the aws backend",
                hint="pass --region, set platform.region in the config, or set AWS_DEFAULT_REGION "
                "(or the AWS profile's region)",
            )
        chosen_region = _region(target)
    # The embedded emulator answers in-process and checks no signature: SigV4 would only
    # cost CPU on every call. Over an endpoint (`local serve`) requests are signed as on AWS.
    unsigned = (
        {"signature_version": UNSIGNED} if target.uses_emulator and service == "batch" else {}
    )
    try:
        return create(
            service,
            region_name=chosen_region,
            endpoint_url=endpoint,
            # apply and plan keep up to 32 reads in flight; urllib3's default pool holds 10
            config=Config(
                retries=retry_config,
                max_pool_connections=64,
                connect_timeout=target.connect_timeout,
                read_timeout=target.read_timeout,
                **unsigned,
            ),
        )
    except InvalidRegionError as exc:
        raise UsageError(
            f"{chosen_region!r} is not an AWS region name",
            hint="pass --region like us-east-1 (or fix AWS_DEFAULT_REGION / the profile's region)",
        ) from exc
    except ValueError as exc:  # botocore: "Invalid endpoint: <url>"
        if endpoint is None:
            raise
        raise UsageError(
            f"--endpoint-url {endpoint!r} is not a URL",
            hint="give a full URL such as http://127.0.0.1:8765 (or fix AWS_ENDPOINT_URL_BATCH)",
        ) from exc


@contextlib.contextmanager
def default_session(target: Target, session: boto3.Session) -> Iterator[None]:
    """boto3's default session is ``session`` meanwhile, for an SDK whose helpers build their
    clients with ``boto3.client(...)`` (the SageMaker SDK's batch helpers).

    On an ``--endpoint-url`` the SDK is pointed at it the way it documents
    (``AWS_ENDPOINT_URL_BATCH``), from a session that reads that variable; both are restored
    afterwards.
    """
    import boto3

    saved_session = boto3.DEFAULT_SESSION
    saved_endpoint = os.environ.get("AWS_ENDPOINT_URL_BATCH")
    if target.endpoint_url:
        local = target.backend != "aws"
        boto3.DEFAULT_SESSION = boto3.Session(
            aws_access_key_id=_DUMMY_KEY if local else None,
            aws_secret_access_key=_DUMMY_KEY if local else None,
            profile_name=None if local else target.profile,
            region_name=_region(target),
        )
        os.environ["AWS_ENDPOINT_URL_BATCH"] = target.endpoint_url
    else:
        boto3.DEFAULT_SESSION = session
    try:
        yield
    finally:
        boto3.DEFAULT_SESSION = saved_session
        if saved_endpoint is None:
            os.environ.pop("AWS_ENDPOINT_URL_BATCH", None)
        else:
            os.environ["AWS_ENDPOINT_URL_BATCH"] = saved_endpoint


def _region(target: Target) -> str:
    return target.region or DEFAULT_REGION


def _isolated_botocore_session() -> botocore.session.Session:
    """A botocore session that reads no profile, config file or endpoint from the user's
    environment: the local account must behave the same on every machine."""
    import botocore.session

    return botocore.session.Session(
        session_vars={
            "profile": (None, None, None, None),
            "config_file": (None, None, os.devnull, None),
            "credentials_file": (None, None, os.devnull, None),
            "ignore_configured_endpoint_urls": (None, None, True, None),
            "retry_mode": (None, None, "standard", None),
        }
    )
