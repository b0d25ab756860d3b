"""One exception family for every user-facing failure.

Each error carries a short, stable, kebab-case ``code`` (scripts and tests match on it), a
human ``message`` and an optional ``hint``. The code is the class's: a raise site names the
class, never the code. Rendering lives in ``quotactl.render.errors`` and the mapping to exit
codes in ``quotactl.cli.app`` (``UsageError`` exits 64, ``WorkInterruptedError`` 130, every
other one 1). The family, grouped by what the user can do about it (the groups are headings,
not classes)::

    QuotactlError
    ├── CommandLineError: fix the command line
    │   ├── UsageError ................ usage
    │   ├── NotFoundError ............. not-found
    │   │   └── ResourceGoneError ..... (also a BackendError)
    │   ├── BackendSettingsError ...... backend
    │   ├── NothingToGenerateError .... nothing-to-generate
    │   ├── DaskMissingError .......... dask-missing
    │   └── ExecutorError ............. executor
    ├── InputError: fix the file
    │   ├── ConfigError ............... config-invalid
    │   │   ├── SpecInvalidError ...... spec-invalid
    │   │   └── ConfigOutsideTreeError  config-outside-tree
    │   ├── FileTooLargeError ......... file-too-large
    │   ├── TraceError ................ trace-invalid
    │   │   └── TraceUnsorted
    │   ├── LedgerError ............... ledger-invalid
    │   ├── PricesError ............... prices-invalid
    │   └── TrainerInvalidError ....... trainer-invalid
    ├── PlanApplyError: plan again, pass a flag, or wait
    │   ├── PlanError ................. plan-error
    │   │   ├── UnmanagedResourceError  unmanaged-resource
    │   │   │   └── TakeoverRefusedError  (also a BackendError)
    │   │   ├── StalePlanError ........ plan-stale
    │   │   ├── PlanInvalidError ...... plan-invalid
    │   │   ├── PlanSignatureError .... plan-signature
    │   │   ├── NotOwnedError ......... not-owned
    │   │   ├── DeleteNotAllowedError . delete-not-allowed
    │   │   └── DisruptionNotAllowedError  disruption-not-allowed
    │   ├── AccountMismatchError ...... account-mismatch
    │   ├── ApprovalRequiredError ..... approval-required
    │   ├── NotConfirmedError ......... cancelled
    │   ├── StateLockedError .......... state-locked
    │   │   └── LockNameTakenError .... (also a BackendError)
    │   ├── RuleFailedError ........... rule-failed
    │   └── ApplyFailedError .......... apply-failed
    ├── JobError: change the job, or look at it
    │   ├── ShareDisabledError ........ share-disabled
    │   │   └── BudgetExceededError ... budget-exceeded
    │   ├── PreflightFailedError ...... preflight-failed
    │   ├── SubmitIncomplete .......... submit-incomplete
    │   │   └── SubmitUnconfirmed ..... submit-unconfirmed
    │   ├── SageMakerSdkMissingError .. sagemaker-sdk-missing
    │   ├── AmbiguousJobError ......... ambiguous-job
    │   ├── JobFinishedError .......... job-finished
    │   ├── CancelFailedError ......... cancel-failed
    │   └── NoLogsError ............... no-logs
    ├── AwsError: fix credentials, region or network, or try again
    │   ├── BackendError .............. aws-error
    │   │   ├── AlreadyExistsError
    │   │   ├── AwsTimeoutError ....... aws-timeout
    │   │   └── ApplyTimeoutError ..... apply-timeout
    │   ├── AwsCredentialsError ....... aws-credentials
    │   ├── AwsProfileError ........... aws-profile
    │   └── AwsRegionError ............ aws-region
    ├── LocalStateError: free, repair or choose a local file or port
    │   ├── StateError ................ emulator-state
    │   ├── PortInUseError ............ port-in-use
    │   ├── FileIOError ............... io-error
    │   ├── UnsafePathError ........... unsafe-path
    │   ├── NotOursError .............. not-ours
    │   └── OutNotEmptyError .......... out-not-empty
    ├── WorkInterruptedError .......... interrupted
    │   └── SubmitInterrupted
    └── InternalError ................. internal
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence

Severity = Literal["error", "warning"]


_CONTROL = {
    code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if code != 0x0A
}
_CONTROL[0x09] = "\\t"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character but the newline (and that too unless
    ``keep_newlines``) written as an escape: a file or job name from a pull request can
    neither drive the terminal nor forge a line of a CI log."""
    table = _CONTROL if keep_newlines else {**_CONTROL, 0x0A: "\\n"}
    return text.translate(table)


class QuotactlError(Exception):
    """Base of every error a user may see; never shown with a traceback unless --debug."""

    code: str = "error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:
        """Cross a process boundary whole: the class, message, hint and every attribute."""
        return (_restore, (type(self), self.message, dict(self.__dict__)))


def _restore(cls: type[QuotactlError], message: str, state: dict[str, Any]) -> QuotactlError:
    error = cls.__new__(cls)
    Exception.__init__(error, message)
    error.__dict__.update(state)
    return error


# -- the command line ---------------------------------------------------------------------
class UsageError(QuotactlError):
    """A bad option or argument (exit code 64)."""

    code = "usage"


class NotFoundError(QuotactlError):
    """Something named by the user does not exist (a file, a queue, a job)."""

    code = "not-found"


class BackendSettingsError(QuotactlError):
    """The backend or endpoint settings do not fit what the command needs."""

    code = "backend"


class NothingToGenerateError(QuotactlError):
    """``trace generate`` found no enabled share to generate jobs for."""

    code = "nothing-to-generate"


class DaskMissingError(QuotactlError):
    """``tune --executor dask://...`` needs the optional ``quotactl[dask]`` extra."""

    code = "dask-missing"


class ExecutorError(QuotactlError):
    """``tune --executor`` names a Dask scheduler that cannot be reached or that failed."""

    code = "executor"


# -- input files --------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding about a configuration file, printed as ``FILE:LINE:COL: error: message``."""

    file: str
    line: int
    column: int
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        """``FILE:LINE:COL: error: message`` (or ``warning:``), the form compilers print, on
        one line whatever the file's name holds (a control character is shown escaped)."""
        text = f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return printable(text, keep_newlines=False)


class ConfigError(QuotactlError):
    """The configuration is invalid; ``diagnostics`` holds every finding with its position."""

    code = "config-invalid"

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        *,
        message: str | None = None,
        hint: str | None = None,
    ) -> None:
        errors = [d for d in diagnostics if d.severity == "error"]
        n = len(errors)
        super().__init__(
            message or f"configuration has {n} error{'s' if n != 1 else ''}",
            hint=hint,
        )
        self.diagnostics = diagnostics


class SpecInvalidError(ConfigError):
    """A job spec is invalid: every finding with its position, when it has one."""

    code = "spec-invalid"

    def __init__(
        self,
        message: str,
        *,
        diagnostics: Sequence[Diagnostic] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(list(diagnostics), message=message, hint=hint)


class ConfigOutsideTreeError(ConfigError):
    """A symbolic link among the config files leads outside the paths named on the command
    line; what it leads to is never read."""

    code = "config-outside-tree"


class FileTooLargeError(QuotactlError):
    """A config file, job spec, trace or plan is over its size limit: refused before reading."""

    code = "file-too-large"


class TraceError(QuotactlError):
    """A trace row that cannot be simulated; the message starts with FILE:LINE."""

    code = "trace-invalid"


class TraceUnsorted(TraceError):
    """A row earlier than the one before it: the trace must be sorted before it is replayed."""


class LedgerError(QuotactlError):
    """A ledger row that cannot be read; the message starts with FILE:LINE."""

    code = "ledger-invalid"


class PricesError(QuotactlError):
    """A ``--prices`` file that does not map instance types to prices per instance-hour."""

    code = "prices-invalid"


class TrainerInvalidError(QuotactlError):
    """``--trainer MODULE:ATTR`` does not name a job the SageMaker SDK accepts."""

    code = "trainer-invalid"


# -- plan and apply -----------------------------------------------------------------------
class PlanError(QuotactlError):
    """The plan cannot be made or used (the code says why)."""

    code = "plan-error"


class UnmanagedResourceError(PlanError):
    """Config names a live resource that this stack does not own."""

    code = "unmanaged-resource"


class StalePlanError(PlanError):
    """Live state changed since a saved plan was made."""

    code = "plan-stale"


class PlanInvalidError(PlanError):
    """The file is not a plan quotactl wrote (or it was edited)."""

    code = "plan-invalid"


class PlanSignatureError(PlanError):
    """``QUOTACTL_PLAN_KEY`` is set and the file's signature is missing or wrong."""

    code = "plan-signature"


class NotOwnedError(PlanError):
    """A change would touch a live resource that this stack's tag does not name."""

    code = "not-owned"


class DeleteNotAllowedError(PlanError):
    """A plan deletes or replaces something and ``--allow-delete`` was not given."""

    code = "delete-not-allowed"


class DisruptionNotAllowedError(PlanError):
    """The plan would terminate or expose active jobs, and no flag allows it."""

    code = "disruption-not-allowed"


class AccountMismatchError(QuotactlError):
    """The credentials or endpoint are for another account (or region) than intended."""

    code = "account-mismatch"


class ApprovalRequiredError(QuotactlError):
    """apply needs ``yes`` on a terminal, or ``--auto-approve``."""

    code = "approval-required"


class NotConfirmedError(QuotactlError):
    """The answer to a confirmation was not ``yes``."""

    code = "cancelled"


class StateLockedError(QuotactlError):
    """Another apply or import of this stack holds the lock."""

    code = "state-locked"


class RuleFailedError(QuotactlError):
    """A soft rule failed without ``--override``, or a hard rule failed."""

    code = "rule-failed"


class ApplyFailedError(QuotactlError):
    """Some changes of an apply failed."""

    code = "apply-failed"


class GovernFailedError(QuotactlError):
    """Some changes of a governor cycle failed."""

    code = "govern-failed"


# -- jobs ---------------------------------------------------------------------------------
class ShareDisabledError(QuotactlError):
    """The share (or queue) is disabled and takes no new jobs."""

    code = "share-disabled"


class BudgetExceededError(ShareDisabledError):
    """The share is DISABLED by its team's hard budget until the budget's period ends."""

    code = "budget-exceeded"


class PreflightFailedError(QuotactlError):
    """The job's role or output bucket is missing; nothing was submitted."""

    code = "preflight-failed"


class SubmitIncomplete(QuotactlError):
    """Some jobs of a ``--count`` were submitted, then a call failed: says which went through,
    and how to submit the rest under the names they would have had."""

    code = "submit-incomplete"

    def __init__(
        self,
        cause: QuotactlError,
        submitted: Sequence[dict[str, str]],
        total: int,
        *,
        rest: str,
    ) -> None:
        left = total - len(submitted)
        super().__init__(
            f"{cause.message} (after {len(submitted)} of {total} jobs were submitted)",
            hint=f"{_stand(len(submitted))}; to submit the other {left} "
            f"under the names they would have had, run the same submit with {rest}",
        )
        self.submitted = [dict(job) for job in submitted]
        """Each job submitted: ``job_id``, ``job_arn``, ``name``, ``queue``, ``share``."""


class SubmitUnconfirmed(SubmitIncomplete):
    """A submit whose answer was lost (and whose repeat AWS rejected or also lost): its job
    was looked for by its ``quotactl:submit-token`` tag and not found in the time allowed. It
    may still appear; submitting it again could run it twice."""

    code = "submit-unconfirmed"

    def __init__(
        self,
        cause: QuotactlError,
        submitted: Sequence[dict[str, str]],
        total: int,
        *,
        name: str,
        token: str,
        queue: str,
        rest: str | None,
    ) -> None:
        QuotactlError.__init__(
            self,
            f"could not confirm that job {name!r} was submitted: {cause.message}; no job with "
            f"tag quotactl:submit-token={token} was found in {queue!r} "
            f"(after {len(submitted)} of {total} jobs were confirmed)",
            hint=f"{_stand(len(submitted))}; {name} may still appear: look for it with "
            f"`quotactl jobs --queue {queue}` before anything else"
            + (
                f"; the jobs after it were not sent: run the same submit with {rest}"
                if rest
                else ""
            ),
        )
        self.submitted = [dict(job) for job in submitted]
        self.unconfirmed = name


def _stand(n: int) -> str:
    return "the submitted job stands" if n == 1 else f"the {n} submitted jobs stand"


class SageMakerSdkMissingError(QuotactlError):
    """``--trainer`` needs the optional ``quotactl[sagemaker]`` extra."""

    code = "sagemaker-sdk-missing"


class AmbiguousJobError(QuotactlError):
    """A job name matches more than one job."""

    code = "ambiguous-job"


class JobFinishedError(QuotactlError):
    """The job has already finished."""

    code = "job-finished"


class CancelFailedError(QuotactlError):
    """Some jobs could not be cancelled."""

    code = "cancel-failed"


class NoLogsError(QuotactlError):
    """The job has no CloudWatch logs (yet, or it runs on the emulator)."""

    code = "no-logs"


# -- AWS and connectivity -----------------------------------------------------------------
class BackendError(QuotactlError):
    """A call to the backend failed; ``message`` is the service's own text."""

    code = "aws-error"

    def __init__(self, message: str, *, retryable: bool = False, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retryable = retryable
        """Throttling or a server error that outlived the client's own retries: try again."""


class AlreadyExistsError(BackendError):
    """A create found the name taken (an interrupted earlier apply, or someone else)."""


class AwsTimeoutError(BackendError):
    """The endpoint did not answer within the connect/read timeouts and retries."""

    code = "aws-timeout"


class ApplyTimeoutError(BackendError):
    """A resource did not become VALID in time."""

    code = "apply-timeout"


class ResourceGoneError(NotFoundError, BackendError):
    """A delete found the resource already gone (or going)."""


class TakeoverRefusedError(UnmanagedResourceError, BackendError):
    """A create found the name taken by a resource of another stack, or of none."""


class LockNameTakenError(StateLockedError, BackendError):
    """The lock's name is taken by something that is not a quotactl lock."""


class AwsCredentialsError(QuotactlError):
    """No AWS credentials were found."""

    code = "aws-credentials"


class AwsProfileError(QuotactlError):
    """The ``--profile`` does not exist."""

    code = "aws-profile"


class AwsRegionError(QuotactlError):
    """The region is malformed or missing."""

    code = "aws-region"


class DoctorFailedError(QuotactlError):
    """``doctor`` found a check that fails (each is printed with what was found)."""

    code = "doctor-failed"


# -- local state --------------------------------------------------------------------------
class StateError(QuotactlError):
    """The state file cannot be used: locked, read-only, full, damaged, or not a state file."""

    code = "emulator-state"


class PortInUseError(QuotactlError):
    """``local serve --port`` is taken."""

    code = "port-in-use"


class FileIOError(QuotactlError):
    """A file could not be read or written."""

    code = "io-error"


class UnsafePathError(QuotactlError):
    """A file name built from live data would leave its directory."""

    code = "unsafe-path"


class NotOursError(QuotactlError):
    """A command would delete or overwrite a file that is not of the kind it made (a config
    for a state file, a state file for a report, a device, a link): it refuses."""

    code = "not-ours"


class OutNotEmptyError(QuotactlError):
    """``export --out DIR`` into a directory that already holds files, without ``--force``."""

    code = "out-not-empty"


class WorkInterruptedError(QuotactlError):
    """Ctrl-C or SIGTERM stopped a command half-way: says exactly what had been done (exit 130)."""

    code = "interrupted"


class SubmitInterrupted(WorkInterruptedError):
    """A ``--count`` submit was interrupted: the jobs submitted before it stand."""

    def __init__(self, submitted: Sequence[object], total: int, in_flight: str | None) -> None:
        pending = (
            f"; the call for {in_flight} was in flight and may have gone through"
            if (in_flight)
            else ""
        )
        super().__init__(
            f"submit interrupted after {len(submitted)} of {total} jobs were submitted{pending}",
            hint="the submitted jobs (listed above) stand; `quotactl jobs` shows them",
        )
        self.submitted = list(submitted)


class InternalError(QuotactlError):
    """A bug in quotactl: re-run with ``--debug`` and report the traceback."""

    code = "internal"


def family() -> dict[str, type[QuotactlError]]:
    """Each code and the one class that defines it."""
    found: dict[str, type[QuotactlError]] = {}
    pending: list[type[QuotactlError]] = [QuotactlError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if "code" in cls.__dict__ and cls is not QuotactlError:
            found.setdefault(cls.code, cls)
    return found
