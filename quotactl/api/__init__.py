"""quotactl as a library: ``connect`` to an account, then the use cases the CLI runs.

    import quotactl

    with quotactl.connect("local", state="state.db") as account:
        desired = quotactl.load(["configs/demo"]).desired
        quotactl.apply(account, desired, show=print, approve=lambda plan: None)
        report = quotactl.status(account)

Every use case takes typed values and returns typed results (it prints nothing); the CLI is
option parsing, one call here, and one render call. Names are loaded on first use, so importing
``quotactl`` or ``quotactl.api`` costs nothing at start-up. ``docs/library.md`` is the guide.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quotactl.api.adopt import (
        check_config_out,
        config_yaml,
        export,
        import_resources,
        write_config,
    )
    from quotactl.api.config import DEFAULT_CONFIG, Validation, load, schema, validate
    from quotactl.api.connection import BACKENDS, DEFAULT_STATE, connect
    from quotactl.api.estimates import estimate_jobs
    from quotactl.api.jobs import (
        AttemptLog,
        Cancelled,
        Explained,
        JobDescription,
        JobList,
        cancel_jobs,
        describe_job,
        job_logs,
        list_jobs,
        read_live,
        set_priority,
        why,
    )
    from quotactl.api.local import advance, reset, serve
    from quotactl.api.offline import (
        GeneratedTrace,
        generate_trace,
        iam_policy,
        policy_commands,
        simulate,
        simulate_compare,
    )
    from quotactl.api.reporting import WATCH_RETRIES, Refresh, status, watch
    from quotactl.api.stack import (
        PLAN_KEY,
        apply,
        force_unlock,
        lock_holder,
        lock_request,
        plan,
        read_plan,
        save_plan,
    )
    from quotactl.api.submission import (
        JobRequest,
        Preview,
        SubmitResult,
        job_request,
        preview,
        submit,
    )
    from quotactl.api.traces import ExportedTrace, export_trace
    from quotactl.api.trainer import TrainerRequest, submit_trainer, trainer_request
    from quotactl.aws.account import Account
    from quotactl.aws.jobs import Submitted
    from quotactl.aws.session import Retries
    from quotactl.config import LoadedConfig
    from quotactl.core.jobs.spec import SubmitOptions

_WHERE = {
    "quotactl.api.adopt": (
        "check_config_out",
        "config_yaml",
        "export",
        "import_resources",
        "write_config",
    ),
    "quotactl.api.config": ("DEFAULT_CONFIG", "Validation", "load", "schema", "validate"),
    "quotactl.api.connection": ("BACKENDS", "DEFAULT_STATE", "connect"),
    "quotactl.api.estimates": ("estimate_jobs",),
    "quotactl.api.jobs": (
        "AttemptLog",
        "Cancelled",
        "Explained",
        "JobDescription",
        "JobList",
        "cancel_jobs",
        "describe_job",
        "job_logs",
        "list_jobs",
        "read_live",
        "set_priority",
        "why",
    ),
    "quotactl.api.local": ("advance", "reset", "serve"),
    "quotactl.api.offline": (
        "GeneratedTrace",
        "generate_trace",
        "iam_policy",
        "policy_commands",
        "simulate",
        "simulate_compare",
    ),
    "quotactl.api.stack": (
        "PLAN_KEY",
        "apply",
        "force_unlock",
        "lock_holder",
        "lock_request",
        "plan",
        "read_plan",
        "save_plan",
    ),
    "quotactl.api.reporting": ("WATCH_RETRIES", "Refresh", "status", "watch"),
    "quotactl.api.submission": (
        "JobRequest",
        "Preview",
        "SubmitResult",
        "job_request",
        "preview",
        "submit",
    ),
    "quotactl.api.trainer": ("TrainerRequest", "submit_trainer", "trainer_request"),
    "quotactl.api.traces": ("ExportedTrace", "export_trace"),
    "quotactl.aws.account": ("Account",),
    "quotactl.aws.jobs": ("Submitted",),
    "quotactl.aws.session": ("Retries",),
    "quotactl.config": ("LoadedConfig",),
    "quotactl.core.jobs.spec": ("SubmitOptions",),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [
    "BACKENDS",
    "DEFAULT_CONFIG",
    "DEFAULT_STATE",
    "PLAN_KEY",
    "WATCH_RETRIES",
    "Account",
    "AttemptLog",
    "Cancelled",
    "Explained",
    "ExportedTrace",
    "GeneratedTrace",
    "JobDescription",
    "JobList",
    "JobRequest",
    "LoadedConfig",
    "Preview",
    "Refresh",
    "Retries",
    "SubmitOptions",
    "SubmitResult",
    "Submitted",
    "TrainerRequest",
    "Validation",
    "advance",
    "apply",
    "cancel_jobs",
    "check_config_out",
    "config_yaml",
    "connect",
    "describe_job",
    "estimate_jobs",
    "export",
    "export_trace",
    "force_unlock",
    "generate_trace",
    "iam_policy",
    "import_resources",
    "job_logs",
    "job_request",
    "list_jobs",
    "load",
    "lock_holder",
    "lock_request",
    "plan",
    "policy_commands",
    "preview",
    "read_live",
    "read_plan",
    "reset",
    "save_plan",
    "schema",
    "serve",
    "set_priority",
    "simulate",
    "simulate_compare",
    "status",
    "submit",
    "submit_trainer",
    "trainer_request",
    "validate",
    "watch",
    "why",
    "write_config",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'quotactl.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
