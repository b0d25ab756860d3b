"""quotactl: declarative administration of AWS Batch quota shares for SageMaker Training.

The library is ``quotactl.api`` (``docs/library.md``); its names are available here too,
loaded on first use so that importing ``quotactl`` stays free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0.dev0"

if TYPE_CHECKING:
    from quotactl import api
    from quotactl.api import (
        Account,
        apply,
        connect,
        load,
        plan,
        simulate,
        status,
        submit,
        validate,
    )

__all__ = [
    "Account",
    "__version__",
    "api",
    "apply",
    "connect",
    "load",
    "plan",
    "simulate",
    "status",
    "submit",
    "validate",
]


def __getattr__(name: str) -> Any:
    import importlib

    api = importlib.import_module("quotactl.api")
    if name == "api":
        return api
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module 'quotactl' has no attribute {name!r}")
