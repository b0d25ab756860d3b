"""AWS Batch's error shapes: what the service sends back, not what quotactl shows its users.

Every Batch operation models two errors, ``ClientException`` (400) and ``ServerException``
(500), each with one member ``message``; throttling is HTTP 429 ``TooManyRequestsException``.
The wire layer turns a ``ServiceError`` into ``x-amzn-ErrorType`` + ``{"message": ...}``.
"""

from __future__ import annotations


class ServiceError(Exception):
    """An error response: AWS error code, HTTP status and the message a client will read."""

    code = "ServerException"
    status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ClientException(ServiceError):
    """The request is wrong (bad value, unknown resource, wrong state): HTTP 400."""

    code = "ClientException"
    status = 400


class ServerException(ServiceError):
    """The service failed (injected faults only): HTTP 500, retried by botocore."""

    code = "ServerException"
    status = 500


class TooManyRequestsException(ServiceError):
    """Throttled: HTTP 429, retried by botocore's standard and legacy retry modes."""

    code = "TooManyRequestsException"
    status = 429


class UnknownOperation(ServiceError):
    """No Batch operation at this method and path (what a non-Batch client sees)."""

    code = "UnknownOperationException"
    status = 404
