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
        config_yaml as config_yaml,
        export as export,
        export_config as export_config,
        import_resources as import_resources,
        import_stack as import_stack,
        write_config as write_config,
    )
    from quotactl.api.checkup import (
        doctor as doctor,
        versions as versions,
    )
    from quotactl.api.config import (
        DEFAULT_CONFIG as DEFAULT_CONFIG,
        load as load,
        schema as schema,
        validate as validate,
    )
    from quotactl.api.connection import (
        BACKENDS as BACKENDS,
        DEFAULT_STATE as DEFAULT_STATE,
        connect as connect,
    )
    from quotactl.api.estimates import (
        estimate_jobs as estimate_jobs,
    )
    from quotactl.api.formatting import (
        fmt as fmt,
        format_files as format_files,
        write_formatted as write_formatted,
    )
    from quotactl.api.governor import (
        govern as govern,
        govern_cycle as govern_cycle,
    )
    from quotactl.api.history_ledger import (
        history as history,
    )
    from quotactl.api.jobs import (
        JobList as JobList,
        cancel_jobs as cancel_jobs,
        describe_job as describe_job,
        job_logs as job_logs,
        job_rows as job_rows,
        list_jobs as list_jobs,
        read_live as read_live,
        set_priority as set_priority,
        stream_jobs as stream_jobs,
        why as why,
    )
    from quotactl.api.live_status import (
        WATCH_RETRIES as WATCH_RETRIES,
        status as status,
        watch as watch,
    )
    from quotactl.api.local import (
        advance as advance,
        reset as reset,
        serve as serve,
    )
    from quotactl.api.metrics import (
        openmetrics as openmetrics,
        read_metrics as read_metrics,
        serve_metrics as serve_metrics,
    )
    from quotactl.api.offline import (
        Governing as Governing,
        generate_trace as generate_trace,
        iam_policy as iam_policy,
        policy_commands as policy_commands,
        simulate as simulate,
        simulate_compare as simulate_compare,
        simulate_judged as simulate_judged,
    )
    from quotactl.api.report_files import (
        check_report_path as check_report_path,
        report_page as report_page,
        write_report as write_report,
    )
    from quotactl.api.rules import (
        check_overrides as check_overrides,
        judge_config as judge_config,
        judge_simulation as judge_simulation,
        rules_for as rules_for,
        rules_for_paths as rules_for_paths,
    )
    from quotactl.api.settings import (
        FAULTS_VARIABLE as FAULTS_VARIABLE,
        EmulatorSettings as EmulatorSettings,
    )
    from quotactl.api.stack import (
        PLAN_KEY as PLAN_KEY,
        apply as apply,
        force_unlock as force_unlock,
        lock_holder as lock_holder,
        lock_request as lock_request,
        plan as plan,
        read_plan as read_plan,
        save_plan as save_plan,
        unlock as unlock,
    )
    from quotactl.api.submission import (
        JobRequest as JobRequest,
        job_request as job_request,
        preview as preview,
        submit as submit,
    )
    from quotactl.api.traces import (
        export_trace as export_trace,
        import_trace as import_trace,
        trace_mapping as trace_mapping,
    )
    from quotactl.api.trainer import (
        TrainerRequest as TrainerRequest,
        submit_trainer as submit_trainer,
        trainer_request as trainer_request,
    )
    from quotactl.api.tuning import (
        check_tuned_out as check_tuned_out,
        tune as tune,
        tune_and_write as tune_and_write,
        tune_request as tune_request,
        tuned_comparison as tuned_comparison,
        tuned_edits as tuned_edits,
        tuned_recording as tuned_recording,
        tuned_rules as tuned_rules,
        write_tuned as write_tuned,
    )
    from quotactl.api.usage_figures import (
        UsageWindow as UsageWindow,
        usage as usage,
        usage_run as usage_run,
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
        LockHolding as LockHolding,
    )
    from quotactl.core.checkup import (
        Check as Check,
        Checkup as Checkup,
    )
    from quotactl.core.estimate.answers import (
        Explained as Explained,
        JobRows as JobRows,
        Preview as Preview,
    )
    from quotactl.core.formatting import (
        Formatted as Formatted,
        Formatting as Formatting,
    )
    from quotactl.core.govern.run import (
        GovernCycle as GovernCycle,
        GovernRun as GovernRun,
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
        Cancelled as Cancelled,
        JobDescription as JobDescription,
        JobLogs as JobLogs,
        LogLine as LogLine,
        SubmitResult as SubmitResult,
        Submitted as Submitted,
    )
    from quotactl.core.jobs.spec import (
        SubmitOptions as SubmitOptions,
    )
    from quotactl.core.local import (
        ClockAdvanced as ClockAdvanced,
        StateReset as StateReset,
    )
    from quotactl.core.plan.adoption import (
        ConfigExport as ConfigExport,
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
        refusal as refusal,
    )
    from quotactl.core.simulate.written import (
        ExportedTrace as ExportedTrace,
        GeneratedTrace as GeneratedTrace,
        ImportedTrace as ImportedTrace,
    )
    from quotactl.core.states import (
        JobStatus as JobStatus,
    )
    from quotactl.core.status.watching import (
        Refresh as Refresh,
        StatusWatch as StatusWatch,
    )
    from quotactl.core.validation import (
        ConfigSchema as ConfigSchema,
        ConfigSummary as ConfigSummary,
        Validation as Validation,
    )

_WHERE: dict[str, tuple[str, ...]] = {
    "quotactl.api.adopt": (
        "check_config_out",
        "config_yaml",
        "export",
        "export_config",
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
    "quotactl.api.governor": ("govern", "govern_cycle"),
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
        "Governing",
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
    "quotactl.core.govern.run": ("GovernCycle", "GovernRun"),
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
    "quotactl.core.plan.adoption": ("ConfigExport", "Imported"),
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
