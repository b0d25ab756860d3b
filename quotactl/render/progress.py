"""Apply's progress display: the ``ApplyHooks`` implementation.

On a terminal, a live progress bar with the changes in flight; elsewhere (CI logs, pipes,
tests) one plain line per change as it ends, so logs stay readable and diffable.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
)
from rich.text import Text

from quotactl.core.apply.hooks import ApplyResult, NullHooks, Status
from quotactl.core.outputs import Output
from quotactl.core.plan.model import Action
from quotactl.core.words import count_of
from quotactl.errors import WorkInterruptedError
from quotactl.render.plan import STYLES
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rich.console import Console

    from quotactl.core.apply.hooks import ChangeOutcome
    from quotactl.core.plan.model import Change, Plan

PAST = {
    Action.CREATE: "created",
    Action.UPDATE: "updated",
    Action.REPLACE: "replaced",
    Action.DELETE: "deleted",
}


class ProgressHooks(NullHooks):
    """Prints apply's progress on ``console``; ``live`` draws a bar (terminals only)."""

    def __init__(
        self,
        console: Console,
        *,
        live: bool | None = None,
        on_finished: Callable[[], None] | None = None,
    ) -> None:
        self.console = console
        self.live = console.is_terminal if live is None else live
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.inflight: dict[str, str] = {}
        self.ended: list[ChangeOutcome] = []
        """Every change that has ended (done, failed or skipped), in order."""
        self.finished = on_finished or (lambda: None)

    def apply_started(self, plan: Plan) -> None:
        if not self.live:
            return
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[current]}", style="dim"),
            console=self.console,
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task("Applying", total=len(plan.changes), current="")

    def before_change(self, change: Change) -> None:
        self.inflight[change.address] = change.action.value
        self._refresh()

    def progress(self, address: str, message: str) -> None:
        if address in self.inflight:
            self.inflight[address] = message
            self._refresh()
        if message.startswith("retrying") and not self.live:
            self.console.print(Text(f"  {address}: {message}", style="dim"))

    def after_change(self, outcome: ChangeOutcome) -> None:
        self.inflight.pop(outcome.address, None)
        self.ended.append(outcome)
        self._print(outcome_line(outcome))
        if self.bar is not None and self.task is not None and outcome.action is not None:
            self.bar.advance(self.task)
        self._refresh()

    def apply_finished(self, result: ApplyResult) -> None:
        self.finished()
        self.close()
        self.console.print(result_text(result))

    def close(self) -> None:
        """Stop the live bar; safe to call twice. Apply's caller calls it on every way out
        (Ctrl-C, an unexpected error), else the terminal is left with its cursor hidden."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    @contextlib.contextmanager
    def closing(self) -> Iterator[None]:
        """The bar closed however apply ends; on Ctrl-C, the error says exactly which changes
        were made (the stack's lock is released by then) and that running it again resumes."""
        try:
            yield
        except KeyboardInterrupt:
            self.close()
            raise self.interrupted() from None
        finally:
            self.close()

    def interrupted(self) -> WorkInterruptedError:
        """What an interrupted apply had done: each change made, failed, and in flight."""
        done = [o.address for o in self.ended if o.status == "done"]
        failed = [o.address for o in self.ended if o.status != "done"]
        made = f"{count_of(len(done), 'change')} made" + (f" ({', '.join(done)})" if done else "")
        parts = [made]
        if failed:
            parts.append(f"{len(failed)} failed or skipped ({', '.join(failed)})")
        if self.inflight:
            parts.append(f"in flight, may still complete: {', '.join(sorted(self.inflight))}")
        return WorkInterruptedError(
            "apply interrupted: " + "; ".join(parts) + "; the stack lock is not held",
            hint="run apply again: it picks up where this one stopped",
        )

    def _print(self, text: Text) -> None:
        (self.bar.console if self.bar else self.console).print(text)

    def _refresh(self) -> None:
        if self.bar is None or self.task is None:
            return
        shown = list(self.inflight.items())[:3]
        current = "  ".join(f"{a}: {m}" for a, m in shown)
        if len(self.inflight) > len(shown):
            current += f"  (+{len(self.inflight) - len(shown)} more)"
        self.bar.update(self.task, current=current)


def outcome_line(outcome: ChangeOutcome) -> Text:
    """``+ share.training/nlp: created (1.2s)``; failures carry AWS's message."""
    action = outcome.action
    symbol = action.symbol if action else "…"
    style = STYLES[action] if action else "dim"
    line = Text()
    line.append(f"{symbol} {outcome.address}", style=style)
    if outcome.status is Status.DONE:
        verb = PAST[action] if action else "settled"
        line.append(f": {verb} ({outcome.seconds:.1f}s)")
    elif outcome.status is Status.FAILED:
        line.append(": failed: ", style="bold red")
        line.append(outcome.message or "unknown error")
    else:
        line.append(f": skipped ({outcome.message})", style="yellow")
    return line


def result_text(result: ApplyResult, *, clock: float | None = None) -> Text:
    """The closing line of an apply."""
    seconds = result.seconds if clock is None else clock
    done = [o for o in result.done if o.action is not None]
    if result.ok:
        counts = {a: sum(1 for o in done if o.action is a) for a in PAST}
        parts = ", ".join(f"{n} {PAST[a]}" for a, n in counts.items())
        return Text(f"Apply complete: {parts} in {seconds:.1f}s.", style="bold green")
    return Text(
        f"Apply failed: {len(result.failed)} failed, {len(result.skipped)} skipped, "
        f"{len(done)} done in {seconds:.1f}s.",
        style="bold red",
    )


@view(ApplyResult, Output.TEXT)
def show_applied(result: ApplyResult, screen: Screen) -> None:
    """Nothing more: the hooks drew each change and the closing line (``result_text``) as
    apply ran; the command then fails when a change failed or was skipped."""
