"""One view per result: the registry every command's output goes through.

A use case returns one result value (a core type); a view draws it in one output format.
Views register themselves with ``@view(ResultType, Output.TEXT, ...)`` in the render module
that draws that type, and ``WHERE`` names that module for each output, so ``show`` imports
only the view a command needs (rich and the charts stay off the path of a JSON document).
``Runtime.show(result, output)`` is the one caller: it hands over the ``Screen`` (stdout,
stderr and the console settings) and the output format; no command picks a view itself.

Adding a result: a core type, a function here decorated with ``@view`` in its render module,
and a line in ``WHERE`` (``tests/render/test_views.py`` checks that every line resolves).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.errors import QuotactlError
    from quotactl.render.console import Console

R = TypeVar("R")

_STATUS = "quotactl.core.status"
_JOB_VIEWS = {"text": "quotactl.render.jobs", "json": "quotactl.render.jobs_json"}
WHERE: dict[str, dict[str, str]] = {
    # the result type (module.QualifiedName) -> {output: the render module holding its view}
    f"{_STATUS}.report.StatusReport": {
        "text": "quotactl.render.status",
        "json": "quotactl.render.status_json",
    },
    f"{_STATUS}.watching.StatusWatch": {
        "text": "quotactl.render.status_watch",
        "json": "quotactl.render.status_watch",
    },
    "quotactl.core.history.gauges.Reading": {"openmetrics": "quotactl.render.openmetrics"},
    # g2: tune, simulate, usage, trace, history
    "quotactl.core.tune.run.TuneRun": {
        "text": "quotactl.render.tune",
        "json": "quotactl.render.tune",
        "markdown": "quotactl.render.tune",
        "html": "quotactl.render.report.tuning",
    },
    "quotactl.core.simulate.judged.JudgedSimulation": {
        "text": "quotactl.render.simulate",
        "json": "quotactl.render.simulate",
        "markdown": "quotactl.render.simulate",
        "html": "quotactl.render.report.whatif",
    },
    "quotactl.core.history.report.UsageRun": {
        "text": "quotactl.render.usage",
        "json": "quotactl.render.usage_data",
        "csv": "quotactl.render.usage_data",
        "markdown": "quotactl.render.usage",
        "html": "quotactl.render.report.usage",
    },
    "quotactl.core.simulate.written.GeneratedTrace": {"text": "quotactl.render.traces"},
    "quotactl.core.simulate.written.ExportedTrace": {"text": "quotactl.render.traces"},
    "quotactl.core.simulate.written.ImportedTrace": {"text": "quotactl.render.traces"},
    "quotactl.core.history.written.HistoryWritten": {"text": "quotactl.render.history"},
    "quotactl.core.simulate.judged.JudgedComparison": {
        "text": "quotactl.render.compare",
        "json": "quotactl.render.compare",
        "markdown": "quotactl.render.compare",
        "html": "quotactl.render.report.whatif",
    },
    # the job commands: jobs, job describe|cancel|priority|why|logs, submit
    **{
        f"quotactl.core.{kind}": _JOB_VIEWS
        for kind in (
            "estimate.answers.JobRows",
            "estimate.answers.Explained",
            "estimate.answers.Preview",
            "jobs.results.JobDescription",
            "jobs.results.Cancelled",
            "jobs.results.SubmitResult",
            "jobs.reprioritise.PriorityChange",
        )
    },
    "quotactl.core.jobs.results.JobLogs": {"text": "quotactl.render.job_logs"},
    # plan, apply, validate, doctor, export/import, lock, fmt, metrics, local (house-g3)
    "quotactl.core.plan.model.Plan": {
        "text": "quotactl.render.plan",
        "json": "quotactl.render.plan",
        "markdown": "quotactl.render.plan",
    },
    "quotactl.core.apply.hooks.ApplyResult": {"text": "quotactl.render.progress"},
    "quotactl.core.validation.Validation": {
        "text": "quotactl.render.validation",
        "json": "quotactl.render.validation",
    },
    "quotactl.core.checkup.Checkup": {
        "text": "quotactl.render.doctor",
        "json": "quotactl.render.doctor",
    },
    "quotactl.core.formatting.Formatting": {"text": "quotactl.render.formatting"},
    "quotactl.core.plan.adoption.Imported": {"text": "quotactl.render.adopt"},
    "quotactl.core.plan.adoption.ConfigExport": {"text": "quotactl.render.adopt"},
    "quotactl.core.local.ClockAdvanced": {"text": "quotactl.render.local"},
    "quotactl.core.govern.run.GovernRun": {
        "text": "quotactl.render.govern",
        "json": "quotactl.render.govern",
    },
    "quotactl.core.local.StateReset": {"text": "quotactl.render.local"},
    "quotactl.core.apply.lock.LockHolding": {"text": "quotactl.render.lock"},
    "quotactl.core.apply.lock.LockCleared": {"text": "quotactl.render.lock"},
    "quotactl.core.iam.PolicyDocument": {
        "text": "quotactl.render.documents",
        "json": "quotactl.render.documents",
    },
    "quotactl.core.validation.ConfigSchema": {
        "text": "quotactl.render.validation",
        "json": "quotactl.render.validation",
    },
}
_VIEWS: dict[tuple[type, str], Callable[[Any, Screen], None]] = {}


@dataclass
class Screen:
    """Where a view writes: stdout and stderr, and how to build a rich console on them."""

    stdout: TextIO
    stderr: TextIO
    color: bool = True
    width: int | None = None
    quiet: bool = False
    """``-q``: notices (``notice``) are not written."""
    widen_pipes: bool = True
    """Tables into a pipe or a file are as wide as they need (False: ``COLUMNS`` was set)."""
    json_written: bool = field(default=False, init=False)
    """A JSON document went to stdout: the error boundary adds no error document after it."""

    def console(self, *, stderr: bool = False) -> Console:
        """A rich console on stdout or stderr honouring --no-color/NO_COLOR and the width."""
        from quotactl.render.console import make_console

        return make_console(
            self.stderr if stderr else self.stdout,
            color=self.color,
            width=self.width,
            widen_pipes=self.widen_pipes,
        )

    def write(self, text: str) -> None:
        """Text on stdout, as it is."""
        self.stdout.write(text)

    def write_json(self, document: object) -> None:
        """One JSON document on stdout (indented, one trailing newline)."""
        self.stdout.write(json.dumps(document, indent=2) + "\n")
        self.json_written = True

    def line(self, text: str = "", *, stderr: bool = False) -> None:
        """One plain line on stdout (or stderr)."""
        print(text, file=self.stderr if stderr else self.stdout)

    def notice(self, text: str) -> None:
        """One informational line on stderr (what was written where), silenced by ``-q``."""
        if not self.quiet:
            print(text, file=self.stderr)


def view(
    result_type: type[R], *outputs: str
) -> Callable[[Callable[[R, Screen], None]], Callable[[R, Screen], None]]:
    """Register the decorated function as the view of ``result_type`` in ``outputs``."""

    def register(draw: Callable[[R, Screen], None]) -> Callable[[R, Screen], None]:
        for output in outputs:
            _VIEWS[(result_type, str(output))] = draw
        return draw

    return register


def show(screen: Screen, result: object, output: str) -> None:
    """Draw ``result`` on ``screen`` with its view in ``output``."""
    find(type(result), output)(result, screen)


def failure_of(result: object) -> QuotactlError | None:
    """The error a shown result ends its command with (a ``Failable`` that failed), if any."""
    from quotactl.core.results import Failable

    return result.failure() if isinstance(result, Failable) else None


def find(kind: type, output: str) -> Callable[[Any, Screen], None]:
    """The view of results of type ``kind`` (or a base of it) in ``output``."""
    for klass in kind.__mro__:
        key = (klass, str(output))
        if key not in _VIEWS:
            module = WHERE.get(f"{klass.__module__}.{klass.__qualname__}", {}).get(str(output))
            if module is not None:
                importlib.import_module(module)
        if key in _VIEWS:
            return _VIEWS[key]
    raise LookupError(f"no {output} view of {kind.__module__}.{kind.__qualname__}")
