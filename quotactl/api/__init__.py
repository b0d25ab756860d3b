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
        import_stack,
        write_config,
    )
    from quotactl.api.checkup import doctor, versions
    from quotactl.api.config import DEFAULT_CONFIG, load, schema, validate
    from quotactl.api.connection import BACKENDS, DEFAULT_STATE, connect
    from quotactl.api.estimates import estimate_jobs
    from quotactl.api.formatting import fmt, format_files, write_formatted
    from quotactl.api.history_ledger import HistoryWritten, history
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
        stream_jobs,
        why,
    )
    from quotactl.api.live_status import WATCH_RETRIES, status, watch
    from quotactl.api.local import advance, reset, serve
    from quotactl.api.metrics import openmetrics, read_metrics, serve_metrics
    from quotactl.api.offline import (
        GeneratedTrace,
        generate_trace,
        iam_policy,
        policy_commands,
        simulate,
        simulate_compare,
    )
    from quotactl.api.report_files import check_report_path, write_report
    from quotactl.api.rules import judge_config, judge_simulation, rules_for, rules_for_paths
    from quotactl.api.settings import FAULTS_VARIABLE, EmulatorSettings
    from quotactl.api.stack import (
        PLAN_KEY,
        apply,
        force_unlock,
        lock_holder,
        lock_request,
        plan,
        read_plan,
        save_plan,
        unlock,
    )
    from quotactl.api.submission import (
        JobRequest,
        Preview,
        SubmitResult,
        job_request,
        preview,
        submit,
    )
    from quotactl.api.traces import ExportedTrace, export_trace, import_trace
    from quotactl.api.trainer import TrainerRequest, submit_trainer, trainer_request
    from quotactl.api.tuning import (
        check_tuned_out,
        tune,
        tuned_comparison,
        tuned_edits,
        tuned_recording,
        tuned_rules,
        write_tuned,
    )
    from quotactl.api.usage_figures import UsageWindow, usage
    from quotactl.aws.account import Account
    from quotactl.aws.jobs import Submitted
    from quotactl.aws.session import Retries
    from quotactl.config import LoadedConfig
    from quotactl.core.apply.hooks import ApplyResult
    from quotactl.core.apply.lock import LockCleared, LockHolding
    from quotactl.core.checkup import Check, Checkup
    from quotactl.core.formatting import Formatted, Formatting
    from quotactl.core.iam import PolicyDocument
    from quotactl.core.jobs.spec import SubmitOptions
    from quotactl.core.local import ClockAdvanced, StateReset
    from quotactl.core.plan.adoption import Imported
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.desired import DesiredState
    from quotactl.core.resources.observed import ObservedResource
    from quotactl.core.rules import Rule, refusal
    from quotactl.core.status.watching import Refresh, StatusWatch
    from quotactl.core.validation import ConfigSchema, ConfigSummary, Validation

_WHERE = {
    "quotactl.api.adopt": (
        "check_config_out",
        "config_yaml",
        "export",
        "import_resources",
        "import_stack",
        "write_config",
    ),
    "quotactl.api.config": ("DEFAULT_CONFIG", "load", "schema", "validate"),
    "quotactl.api.connection": ("BACKENDS", "DEFAULT_STATE", "connect"),
    "quotactl.api.settings": ("FAULTS_VARIABLE", "EmulatorSettings"),
    "quotactl.api.rules": ("judge_config", "judge_simulation", "rules_for", "rules_for_paths"),
    "quotactl.api.history_ledger": ("HistoryWritten", "history"),
    "quotactl.api.checkup": ("doctor", "versions"),
    "quotactl.api.formatting": ("fmt", "format_files", "write_formatted"),
    "quotactl.api.estimates": ("estimate_jobs",),
    "quotactl.api.jobs": (
        "AttemptLog",
        "Cancelled",
        "ConfigSchema",
        "ConfigSummary",
        "Explained",
        "Imported",
        "JobDescription",
        "JobList",
        "cancel_jobs",
        "describe_job",
        "job_logs",
        "list_jobs",
        "read_live",
        "set_priority",
        "stream_jobs",
        "why",
    ),
    "quotactl.api.local": ("advance", "reset", "serve"),
    "quotactl.api.metrics": ("openmetrics", "read_metrics", "serve_metrics"),
    "quotactl.api.offline": (
        "GeneratedTrace",
        "generate_trace",
        "iam_policy",
        "policy_commands",
        "simulate",
        "simulate_compare",
    ),
    "quotactl.api.report_files": ("check_report_path", "write_report"),
    "quotactl.api.stack": (
        "PLAN_KEY",
        "apply",
        "force_unlock",
        "lock_holder",
        "lock_request",
        "plan",
        "read_plan",
        "save_plan",
        "unlock",
    ),
    "quotactl.api.live_status": ("WATCH_RETRIES", "status", "watch"),
    "quotactl.core.status.watching": ("Refresh", "StatusWatch"),
    "quotactl.api.submission": (
        "JobRequest",
        "PolicyDocument",
        "Preview",
        "SubmitResult",
        "job_request",
        "preview",
        "submit",
    ),
    "quotactl.api.trainer": ("TrainerRequest", "submit_trainer", "trainer_request"),
    "quotactl.api.traces": ("ExportedTrace", "export_trace", "import_trace"),
    "quotactl.api.tuning": (
        "check_tuned_out",
        "tune",
        "tuned_comparison",
        "tuned_edits",
        "tuned_recording",
        "tuned_rules",
        "write_tuned",
    ),
    "quotactl.api.usage_figures": ("UsageWindow", "usage"),
    "quotactl.aws.account": ("Account",),
    "quotactl.aws.jobs": ("Submitted",),
    "quotactl.aws.session": ("Retries",),
    "quotactl.config": ("LoadedConfig",),
    "quotactl.core.jobs.spec": ("SubmitOptions",),
    # plan, apply, validate, doctor, export/import, lock, fmt, metrics, local (house-g3)
    "quotactl.core.apply.hooks": ("ApplyResult",),
    "quotactl.core.plan.model": ("Plan",),
    "quotactl.core.resources.desired": ("DesiredState",),
    "quotactl.core.rules": ("Rule", "refusal"),
    "quotactl.core.checkup": ("Check", "Checkup"),
    "quotactl.core.formatting": ("Formatted", "Formatting"),
    "quotactl.core.iam": ("PolicyDocument",),
    "quotactl.core.plan.adoption": ("Imported",),
    "quotactl.core.local": ("ClockAdvanced", "StateReset"),
    "quotactl.core.apply.lock": ("LockCleared", "LockHolding"),
    "quotactl.core.resources.observed": ("ObservedResource",),
    "quotactl.core.validation": ("ConfigSchema", "ConfigSummary", "Validation"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [
    "BACKENDS",
    "DEFAULT_CONFIG",
    "DEFAULT_STATE",
    "FAULTS_VARIABLE",
    "PLAN_KEY",
    "WATCH_RETRIES",
    "Account",
    "ApplyResult",
    "AttemptLog",
    "Cancelled",
    "Check",
    "Checkup",
    "ClockAdvanced",
    "ConfigSchema",
    "ConfigSummary",
    "DesiredState",
    "EmulatorSettings",
    "Explained",
    "ExportedTrace",
    "Formatted",
    "Formatting",
    "GeneratedTrace",
    "HistoryWritten",
    "Imported",
    "JobDescription",
    "JobList",
    "JobRequest",
    "LoadedConfig",
    "LockCleared",
    "LockHolding",
    "ObservedResource",
    "Plan",
    "PolicyDocument",
    "Preview",
    "Refresh",
    "Retries",
    "Rule",
    "StateReset",
    "StatusWatch",
    "SubmitOptions",
    "SubmitResult",
    "Submitted",
    "TrainerRequest",
    "UsageWindow",
    "Validation",
    "advance",
    "apply",
    "cancel_jobs",
    "check_config_out",
    "check_report_path",
    "check_tuned_out",
    "config_yaml",
    "connect",
    "describe_job",
    "doctor",
    "estimate_jobs",
    "export",
    "export_trace",
    "fmt",
    "force_unlock",
    "format_files",
    "generate_trace",
    "history",
    "iam_policy",
    "import_resources",
    "import_stack",
    "import_trace",
    "job_logs",
    "job_request",
    "judge_config",
    "judge_simulation",
    "list_jobs",
    "load",
    "lock_holder",
    "lock_request",
    "openmetrics",
    "plan",
    "policy_commands",
    "preview",
    "read_live",
    "read_metrics",
    "read_plan",
    "refusal",
    "reset",
    "rules_for",
    "rules_for_paths",
    "save_plan",
    "schema",
    "serve",
    "serve_metrics",
    "set_priority",
    "simulate",
    "simulate_compare",
    "status",
    "stream_jobs",
    "submit",
    "submit_trainer",
    "trainer_request",
    "tune",
    "tuned_comparison",
    "tuned_edits",
    "tuned_recording",
    "tuned_rules",
    "unlock",
    "usage",
    "validate",
    "versions",
    "watch",
    "why",
    "write_config",
    "write_formatted",
    "write_report",
    "write_tuned",
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
