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
    from quotactl.api.checkup import Check, Checkup, doctor, versions
    from quotactl.api.config import DEFAULT_CONFIG, Validation, load, schema, validate
    from quotactl.api.connection import BACKENDS, DEFAULT_STATE, connect
    from quotactl.api.estimates import estimate_jobs
    from quotactl.api.formatting import Formatted, format_files, write_formatted
    from quotactl.api.history_ledger import history
    from quotactl.api.jobs import (
        JobList,
        cancel_jobs,
        describe_job,
        job_logs,
        job_rows,
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
        generate_trace,
        iam_policy,
        policy_commands,
        simulate,
        simulate_compare,
        simulate_judged,
    )
    from quotactl.api.report_files import check_report_path, report_page, write_report
    from quotactl.api.rules import (
        check_overrides,
        judge_config,
        judge_simulation,
        rules_for,
        rules_for_paths,
    )
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
    )
    from quotactl.api.submission import (
        JobRequest,
        job_request,
        preview,
        submit,
    )
    from quotactl.api.traces import (
        export_trace,
        import_trace,
        trace_mapping,
    )
    from quotactl.api.trainer import TrainerRequest, submit_trainer, trainer_request
    from quotactl.api.tuning import (
        check_tuned_out,
        tune,
        tune_and_write,
        tune_request,
        tuned_comparison,
        tuned_edits,
        tuned_recording,
        tuned_rules,
        write_tuned,
    )
    from quotactl.api.usage_figures import UsageWindow, usage, usage_run, usage_window
    from quotactl.aws.account import Account
    from quotactl.aws.session import Retries
    from quotactl.config import LoadedConfig
    from quotactl.core.estimate.answers import Explained, JobRows, Preview
    from quotactl.core.history.report import UsageRun
    from quotactl.core.history.written import HistoryWritten
    from quotactl.core.jobs.results import (
        AttemptLog,
        Cancelled,
        JobDescription,
        JobLogs,
        LogLine,
        SubmitResult,
        Submitted,
    )
    from quotactl.core.jobs.spec import SubmitOptions
    from quotactl.core.simulate.written import ExportedTrace, GeneratedTrace, ImportedTrace
    from quotactl.core.states import JobStatus
    from quotactl.core.status.watching import Refresh, StatusWatch

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
    "quotactl.api.settings": ("FAULTS_VARIABLE", "EmulatorSettings"),
    "quotactl.api.rules": (
        "check_overrides",
        "judge_config",
        "judge_simulation",
        "rules_for",
        "rules_for_paths",
    ),
    "quotactl.api.history_ledger": ("history",),
    "quotactl.api.checkup": ("Check", "Checkup", "doctor", "versions"),
    "quotactl.api.formatting": ("Formatted", "format_files", "write_formatted"),
    "quotactl.api.estimates": ("estimate_jobs",),
    "quotactl.api.jobs": (
        "JobList",
        "cancel_jobs",
        "describe_job",
        "job_logs",
        "job_rows",
        "list_jobs",
        "read_live",
        "set_priority",
        "stream_jobs",
        "why",
    ),
    "quotactl.api.local": ("advance", "reset", "serve"),
    "quotactl.api.metrics": ("openmetrics", "read_metrics", "serve_metrics"),
    "quotactl.api.offline": (
        "generate_trace",
        "iam_policy",
        "policy_commands",
        "simulate",
        "simulate_compare",
        "simulate_judged",
    ),
    "quotactl.api.report_files": ("check_report_path", "report_page", "write_report"),
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
    "quotactl.api.live_status": ("WATCH_RETRIES", "status", "watch"),
    "quotactl.core.status.watching": ("Refresh", "StatusWatch"),
    "quotactl.core.history.report": ("UsageRun",),
    "quotactl.core.history.written": ("HistoryWritten",),
    "quotactl.core.simulate.written": ("ExportedTrace", "GeneratedTrace", "ImportedTrace"),
    "quotactl.api.submission": (
        "JobRequest",
        "job_request",
        "preview",
        "submit",
    ),
    "quotactl.api.trainer": ("TrainerRequest", "submit_trainer", "trainer_request"),
    "quotactl.api.traces": (
        "export_trace",
        "import_trace",
        "trace_mapping",
    ),
    "quotactl.api.tuning": (
        "check_tuned_out",
        "tune",
        "tune_and_write",
        "tune_request",
        "tuned_comparison",
        "tuned_edits",
        "tuned_recording",
        "tuned_rules",
        "write_tuned",
    ),
    "quotactl.api.usage_figures": ("UsageWindow", "usage", "usage_run", "usage_window"),
    "quotactl.aws.account": ("Account",),
    "quotactl.aws.session": ("Retries",),
    "quotactl.config": ("LoadedConfig",),
    # the job commands' results
    "quotactl.core.estimate.answers": ("Explained", "JobRows", "Preview"),
    "quotactl.core.jobs.results": (
        "AttemptLog",
        "Cancelled",
        "JobDescription",
        "JobLogs",
        "LogLine",
        "SubmitResult",
        "Submitted",
    ),
    "quotactl.core.jobs.spec": ("SubmitOptions",),
    "quotactl.core.states": ("JobStatus",),
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
    "AttemptLog",
    "Cancelled",
    "Check",
    "Checkup",
    "EmulatorSettings",
    "Explained",
    "ExportedTrace",
    "Formatted",
    "GeneratedTrace",
    "HistoryWritten",
    "ImportedTrace",
    "JobDescription",
    "JobList",
    "JobLogs",
    "JobRequest",
    "JobRows",
    "JobStatus",
    "LoadedConfig",
    "LogLine",
    "Preview",
    "Refresh",
    "Retries",
    "StatusWatch",
    "SubmitOptions",
    "SubmitResult",
    "Submitted",
    "TrainerRequest",
    "UsageRun",
    "UsageWindow",
    "Validation",
    "advance",
    "apply",
    "cancel_jobs",
    "check_config_out",
    "check_overrides",
    "check_report_path",
    "check_tuned_out",
    "config_yaml",
    "connect",
    "describe_job",
    "doctor",
    "estimate_jobs",
    "export",
    "export_trace",
    "force_unlock",
    "format_files",
    "generate_trace",
    "history",
    "iam_policy",
    "import_resources",
    "import_trace",
    "job_logs",
    "job_request",
    "job_rows",
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
    "report_page",
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
    "simulate_judged",
    "status",
    "stream_jobs",
    "submit",
    "submit_trainer",
    "trace_mapping",
    "trainer_request",
    "tune",
    "tune_and_write",
    "tune_request",
    "tuned_comparison",
    "tuned_edits",
    "tuned_recording",
    "tuned_rules",
    "usage",
    "usage_run",
    "usage_window",
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
