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
        check_config_out as check_config_out,
    )
    from quotactl.api.adopt import (
        config_yaml as config_yaml,
    )
    from quotactl.api.adopt import (
        export as export,
    )
    from quotactl.api.adopt import (
        import_resources as import_resources,
    )
    from quotactl.api.adopt import (
        import_stack as import_stack,
    )
    from quotactl.api.adopt import (
        write_config as write_config,
    )
    from quotactl.api.checkup import (
        doctor as doctor,
    )
    from quotactl.api.checkup import (
        versions as versions,
    )
    from quotactl.api.config import (
        DEFAULT_CONFIG as DEFAULT_CONFIG,
    )
    from quotactl.api.config import (
        load as load,
    )
    from quotactl.api.config import (
        schema as schema,
    )
    from quotactl.api.config import (
        validate as validate,
    )
    from quotactl.api.connection import (
        BACKENDS as BACKENDS,
    )
    from quotactl.api.connection import (
        DEFAULT_STATE as DEFAULT_STATE,
    )
    from quotactl.api.connection import (
        connect as connect,
    )
    from quotactl.api.estimates import (
        estimate_jobs as estimate_jobs,
    )
    from quotactl.api.formatting import (
        fmt as fmt,
    )
    from quotactl.api.formatting import (
        format_files as format_files,
    )
    from quotactl.api.formatting import (
        write_formatted as write_formatted,
    )
    from quotactl.api.history_ledger import (
        history as history,
    )
    from quotactl.api.jobs import (
        JobList as JobList,
    )
    from quotactl.api.jobs import (
        cancel_jobs as cancel_jobs,
    )
    from quotactl.api.jobs import (
        describe_job as describe_job,
    )
    from quotactl.api.jobs import (
        job_logs as job_logs,
    )
    from quotactl.api.jobs import (
        job_rows as job_rows,
    )
    from quotactl.api.jobs import (
        list_jobs as list_jobs,
    )
    from quotactl.api.jobs import (
        read_live as read_live,
    )
    from quotactl.api.jobs import (
        set_priority as set_priority,
    )
    from quotactl.api.jobs import (
        stream_jobs as stream_jobs,
    )
    from quotactl.api.jobs import (
        why as why,
    )
    from quotactl.api.live_status import (
        WATCH_RETRIES as WATCH_RETRIES,
    )
    from quotactl.api.live_status import (
        status as status,
    )
    from quotactl.api.live_status import (
        watch as watch,
    )
    from quotactl.api.local import (
        advance as advance,
    )
    from quotactl.api.local import (
        reset as reset,
    )
    from quotactl.api.local import (
        serve as serve,
    )
    from quotactl.api.metrics import (
        openmetrics as openmetrics,
    )
    from quotactl.api.metrics import (
        read_metrics as read_metrics,
    )
    from quotactl.api.metrics import (
        serve_metrics as serve_metrics,
    )
    from quotactl.api.offline import (
        generate_trace as generate_trace,
    )
    from quotactl.api.offline import (
        iam_policy as iam_policy,
    )
    from quotactl.api.offline import (
        policy_commands as policy_commands,
    )
    from quotactl.api.offline import (
        simulate as simulate,
    )
    from quotactl.api.offline import (
        simulate_compare as simulate_compare,
    )
    from quotactl.api.offline import (
        simulate_judged as simulate_judged,
    )
    from quotactl.api.report_files import (
        check_report_path as check_report_path,
    )
    from quotactl.api.report_files import (
        report_page as report_page,
    )
    from quotactl.api.report_files import (
        write_report as write_report,
    )
    from quotactl.api.rules import (
        check_overrides as check_overrides,
    )
    from quotactl.api.rules import (
        judge_config as judge_config,
    )
    from quotactl.api.rules import (
        judge_simulation as judge_simulation,
    )
    from quotactl.api.rules import (
        rules_for as rules_for,
    )
    from quotactl.api.rules import (
        rules_for_paths as rules_for_paths,
    )
    from quotactl.api.settings import (
        FAULTS_VARIABLE as FAULTS_VARIABLE,
    )
    from quotactl.api.settings import (
        EmulatorSettings as EmulatorSettings,
    )
    from quotactl.api.stack import (
        PLAN_KEY as PLAN_KEY,
    )
    from quotactl.api.stack import (
        apply as apply,
    )
    from quotactl.api.stack import (
        force_unlock as force_unlock,
    )
    from quotactl.api.stack import (
        lock_holder as lock_holder,
    )
    from quotactl.api.stack import (
        lock_request as lock_request,
    )
    from quotactl.api.stack import (
        plan as plan,
    )
    from quotactl.api.stack import (
        read_plan as read_plan,
    )
    from quotactl.api.stack import (
        save_plan as save_plan,
    )
    from quotactl.api.stack import (
        unlock as unlock,
    )
    from quotactl.api.submission import (
        JobRequest as JobRequest,
    )
    from quotactl.api.submission import (
        job_request as job_request,
    )
    from quotactl.api.submission import (
        preview as preview,
    )
    from quotactl.api.submission import (
        submit as submit,
    )
    from quotactl.api.traces import (
        export_trace as export_trace,
    )
    from quotactl.api.traces import (
        import_trace as import_trace,
    )
    from quotactl.api.traces import (
        trace_mapping as trace_mapping,
    )
    from quotactl.api.trainer import (
        TrainerRequest as TrainerRequest,
    )
    from quotactl.api.trainer import (
        submit_trainer as submit_trainer,
    )
    from quotactl.api.trainer import (
        trainer_request as trainer_request,
    )
    from quotactl.api.tuning import (
        check_tuned_out as check_tuned_out,
    )
    from quotactl.api.tuning import (
        tune as tune,
    )
    from quotactl.api.tuning import (
        tune_and_write as tune_and_write,
    )
    from quotactl.api.tuning import (
        tune_request as tune_request,
    )
    from quotactl.api.tuning import (
        tuned_comparison as tuned_comparison,
    )
    from quotactl.api.tuning import (
        tuned_edits as tuned_edits,
    )
    from quotactl.api.tuning import (
        tuned_recording as tuned_recording,
    )
    from quotactl.api.tuning import (
        tuned_rules as tuned_rules,
    )
    from quotactl.api.tuning import (
        write_tuned as write_tuned,
    )
    from quotactl.api.usage_figures import (
        UsageWindow as UsageWindow,
    )
    from quotactl.api.usage_figures import (
        usage as usage,
    )
    from quotactl.api.usage_figures import (
        usage_run as usage_run,
    )
    from quotactl.api.usage_figures import (
        usage_window as usage_window,
    )
    from quotactl.aws.account import (
        Account as Account,
    )
    from quotactl.aws.session import (
        Retries as Retries,
    )
    from quotactl.config import (
        LoadedConfig as LoadedConfig,
    )
    from quotactl.core.apply.hooks import (
        ApplyResult as ApplyResult,
    )
    from quotactl.core.apply.lock import (
        LockCleared as LockCleared,
    )
    from quotactl.core.apply.lock import (
        LockHolding as LockHolding,
    )
    from quotactl.core.checkup import (
        Check as Check,
    )
    from quotactl.core.checkup import (
        Checkup as Checkup,
    )
    from quotactl.core.estimate.answers import (
        Explained as Explained,
    )
    from quotactl.core.estimate.answers import (
        JobRows as JobRows,
    )
    from quotactl.core.estimate.answers import (
        Preview as Preview,
    )
    from quotactl.core.formatting import (
        Formatted as Formatted,
    )
    from quotactl.core.formatting import (
        Formatting as Formatting,
    )
    from quotactl.core.history.report import (
        UsageRun as UsageRun,
    )
    from quotactl.core.history.written import (
        HistoryWritten as HistoryWritten,
    )
    from quotactl.core.iam import (
        PolicyDocument as PolicyDocument,
    )
    from quotactl.core.jobs.results import (
        AttemptLog as AttemptLog,
    )
    from quotactl.core.jobs.results import (
        Cancelled as Cancelled,
    )
    from quotactl.core.jobs.results import (
        JobDescription as JobDescription,
    )
    from quotactl.core.jobs.results import (
        JobLogs as JobLogs,
    )
    from quotactl.core.jobs.results import (
        LogLine as LogLine,
    )
    from quotactl.core.jobs.results import (
        SubmitResult as SubmitResult,
    )
    from quotactl.core.jobs.results import (
        Submitted as Submitted,
    )
    from quotactl.core.jobs.spec import (
        SubmitOptions as SubmitOptions,
    )
    from quotactl.core.local import (
        ClockAdvanced as ClockAdvanced,
    )
    from quotactl.core.local import (
        StateReset as StateReset,
    )
    from quotactl.core.plan.adoption import (
        Imported as Imported,
    )
    from quotactl.core.plan.model import (
        Plan as Plan,
    )
    from quotactl.core.resources.desired import (
        DesiredState as DesiredState,
    )
    from quotactl.core.resources.observed import (
        ObservedResource as ObservedResource,
    )
    from quotactl.core.rules import (
        Rule as Rule,
    )
    from quotactl.core.rules import (
        refusal as refusal,
    )
    from quotactl.core.simulate.written import (
        ExportedTrace as ExportedTrace,
    )
    from quotactl.core.simulate.written import (
        GeneratedTrace as GeneratedTrace,
    )
    from quotactl.core.simulate.written import (
        ImportedTrace as ImportedTrace,
    )
    from quotactl.core.states import (
        JobStatus as JobStatus,
    )
    from quotactl.core.status.watching import (
        Refresh as Refresh,
    )
    from quotactl.core.status.watching import (
        StatusWatch as StatusWatch,
    )
    from quotactl.core.validation import (
        ConfigSchema as ConfigSchema,
    )
    from quotactl.core.validation import (
        ConfigSummary as ConfigSummary,
    )
    from quotactl.core.validation import (
        Validation as Validation,
    )

_WHERE: dict[str, tuple[str, ...]] = {
    "quotactl.api.adopt": (
        "check_config_out",
        "config_yaml",
        "export",
        "import_resources",
        "import_stack",
        "write_config",
    ),
    "quotactl.api.checkup": (
        "doctor",
        "versions",
    ),
    "quotactl.api.config": (
        "DEFAULT_CONFIG",
        "load",
        "schema",
        "validate",
    ),
    "quotactl.api.connection": (
        "BACKENDS",
        "DEFAULT_STATE",
        "connect",
    ),
    "quotactl.api.estimates": ("estimate_jobs",),
    "quotactl.api.formatting": (
        "fmt",
        "format_files",
        "write_formatted",
    ),
    "quotactl.api.history_ledger": ("history",),
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
    "quotactl.api.live_status": (
        "WATCH_RETRIES",
        "status",
        "watch",
    ),
    "quotactl.api.local": (
        "advance",
        "reset",
        "serve",
    ),
    "quotactl.api.metrics": (
        "openmetrics",
        "read_metrics",
        "serve_metrics",
    ),
    "quotactl.api.offline": (
        "generate_trace",
        "iam_policy",
        "policy_commands",
        "simulate",
        "simulate_compare",
        "simulate_judged",
    ),
    "quotactl.api.report_files": (
        "check_report_path",
        "report_page",
        "write_report",
    ),
    "quotactl.api.rules": (
        "check_overrides",
        "judge_config",
        "judge_simulation",
        "rules_for",
        "rules_for_paths",
    ),
    "quotactl.api.settings": (
        "FAULTS_VARIABLE",
        "EmulatorSettings",
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
        "unlock",
    ),
    "quotactl.api.submission": (
        "JobRequest",
        "job_request",
        "preview",
        "submit",
    ),
    "quotactl.api.traces": (
        "export_trace",
        "import_trace",
        "trace_mapping",
    ),
    "quotactl.api.trainer": (
        "TrainerRequest",
        "submit_trainer",
        "trainer_request",
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
    "quotactl.api.usage_figures": (
        "UsageWindow",
        "usage",
        "usage_run",
        "usage_window",
    ),
    "quotactl.aws.account": ("Account",),
    "quotactl.aws.session": ("Retries",),
    "quotactl.config": ("LoadedConfig",),
    "quotactl.core.apply.hooks": ("ApplyResult",),
    "quotactl.core.apply.lock": (
        "LockCleared",
        "LockHolding",
    ),
    "quotactl.core.checkup": (
        "Check",
        "Checkup",
    ),
    "quotactl.core.estimate.answers": (
        "Explained",
        "JobRows",
        "Preview",
    ),
    "quotactl.core.formatting": (
        "Formatted",
        "Formatting",
    ),
    "quotactl.core.history.report": ("UsageRun",),
    "quotactl.core.history.written": ("HistoryWritten",),
    "quotactl.core.iam": ("PolicyDocument",),
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
    "quotactl.core.local": (
        "ClockAdvanced",
        "StateReset",
    ),
    "quotactl.core.plan.adoption": ("Imported",),
    "quotactl.core.plan.model": ("Plan",),
    "quotactl.core.resources.desired": ("DesiredState",),
    "quotactl.core.resources.observed": ("ObservedResource",),
    "quotactl.core.rules": (
        "Rule",
        "refusal",
    ),
    "quotactl.core.simulate.written": (
        "ExportedTrace",
        "GeneratedTrace",
        "ImportedTrace",
    ),
    "quotactl.core.states": ("JobStatus",),
    "quotactl.core.status.watching": (
        "Refresh",
        "StatusWatch",
    ),
    "quotactl.core.validation": (
        "ConfigSchema",
        "ConfigSummary",
        "Validation",
    ),
}
"""Where each public name lives: ``quotactl.api`` loads it on first use."""
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'quotactl.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
