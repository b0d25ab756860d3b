"""``apply(plan, backend, hooks)``: execute a plan exactly, in AWS's order, as fast as it allows.

Apply decides nothing new: it runs the plan's steps (``quotactl.core.apply.steps``) and reports
through hooks. Independent steps run concurrently on a bounded executor (the caller's, else a
thread pool from ``quotactl.core.apply.system``, which also gives the clock every wait reads
and sleeps on); every step that waits for a status is parked, and one batched status poll
serves all of them (so a thousand shares waiting for VALID cost one ListQuotaShares per queue
per poll, not a thread each).
A failed step is reported with AWS's message and everything that depends on it is skipped;
independent steps still run. Retrying throttling and server errors is the client's job
(botocore's standard retries, one budget per call, settable with ``--max-attempts``): an error
that outlives it fails the change here, instead of starting a second budget on top.
"""

from __future__ import annotations

from concurrent import futures
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.apply.hooks import ApplyResult, ChangeOutcome, NullHooks, Status
from quotactl.core.apply.steps import Call, Step, WaitFor, build_steps, program
from quotactl.core.apply.system import SYSTEM_CLOCK, thread_pool
from quotactl.core.states import LifecycleStatus
from quotactl.errors import ApplyTimeoutError, BackendError, QuotactlError

if TYPE_CHECKING:
    from quotactl.core.apply.hooks import ApplyHooks
    from quotactl.core.apply.steps import Program
    from quotactl.core.apply.system import Clock, ExecutorFactory
    from quotactl.core.backend import Backend
    from quotactl.core.plan.model import Plan
    from quotactl.core.resources.observed import ResourceStatus


@dataclass(frozen=True)
class ApplyOptions:
    concurrency: int = 16
    """Calls in flight at once (AWS Batch throttles per account; 16 stays polite)."""
    poll_initial: float = 0.05
    """First status poll after a wait starts; grows by half while nothing changes."""
    poll_max: float = 5.0
    wait_timeout: float = 1800.0
    """Give up on one resource reaching its status after this many seconds."""
    unseen_grace: float = 60.0
    """How long a resource just created may be missing from the reads before it counts as
    gone: AWS's Describe and List calls are eventually consistent, so a read right after a
    create may not show it yet."""


def apply(
    plan: Plan,
    backend: Backend,
    hooks: ApplyHooks | None = None,
    options: ApplyOptions | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
    executor: ExecutorFactory = thread_pool,
) -> ApplyResult:
    """Run every change of ``plan``; the result lists what was done, failed and skipped.

    Calls run on an executor from ``executor``; waits read and pass time through ``clock``.
    """
    runner = _Runner(plan, backend, hooks or NullHooks(), options or ApplyOptions(), clock)
    return runner.run(executor)


class _Runner:
    def __init__(
        self, plan: Plan, backend: Backend, hooks: ApplyHooks, options: ApplyOptions, clock: Clock
    ):
        self.plan, self.backend, self.hooks, self.options = plan, backend, hooks, options
        self.clock = clock
        self.steps = build_steps(plan)
        self.dependants: dict[str, list[str]] = {k: [] for k in self.steps}
        for step in self.steps.values():
            for dep in step.deps:
                self.dependants[dep].append(step.key)
        self.blocking = {k: len(s.deps) for k, s in self.steps.items()}
        self.state: dict[str, Status | None] = dict.fromkeys(self.steps)
        self.programs: dict[str, Program] = {}
        self.calls: dict[futures.Future[object], tuple[str, Call]] = {}
        self.waits: dict[str, tuple[WaitFor, float, str | None]] = {}
        self.unseen: dict[str, float] = {}
        """Waits whose resource the reads do not show yet, since when."""
        self.started: dict[str, float] = {}
        self.outcomes: dict[str, ChangeOutcome] = {}
        self.groups: dict[str, list[str]] = {}
        for step in self.steps.values():
            self.groups.setdefault(step.address, []).append(step.key)
        self.announced: set[str] = set()
        self.interval = options.poll_initial
        self.next_poll = float("inf")

    def run(self, executor: ExecutorFactory) -> ApplyResult:
        begin = self.clock.now()
        self.hooks.apply_started(self.plan)
        pool = executor(self.options.concurrency)
        self.pool = pool
        try:
            for key in sorted(k for k, n in self.blocking.items() if n == 0):
                self._start(key)
            while self.calls or self.waits:
                self._pump()
            for key, step in self.steps.items():  # only a dependency cycle leaves any behind
                if self.state[key] is None and key not in self.programs:
                    self.state[key] = Status.FAILED
                    self._report(step, Status.FAILED, "its dependencies could not be ordered")
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        order = [c.address for c in self.plan.changes] + list(self.plan.settling)
        outcomes = tuple(self.outcomes[a] for a in order if a in self.outcomes)
        result = ApplyResult(outcomes, self.clock.now() - begin)
        self.hooks.apply_finished(result)
        return result

    # -- the event loop -------------------------------------------------------------------

    def _pump(self) -> None:
        now = self.clock.now()
        due = self.next_poll if self.waits else float("inf")
        timeout = max(0.0, due - now) if due != float("inf") else None
        if self.calls:
            done, _ = futures.wait(self.calls, timeout=timeout, return_when=futures.FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: self.calls[f][0]):
                key, _call = self.calls.pop(future)
                error = future.exception()
                if error is None:
                    self._advance(key, future.result())
                else:
                    self._advance(key, None, error)
        elif timeout:
            self.clock.sleep(timeout)
        if self.waits and self.clock.now() >= self.next_poll:
            self._poll()

    def _start(self, key: str) -> None:
        step = self.steps[key]
        self.started[key] = self.clock.now()
        if step.change is not None and step.address not in self.announced:
            self.announced.add(step.address)
            self.hooks.before_change(step.change)
        self.programs[key] = program(step, self.backend, self.plan.stack)
        self._advance(key, None)

    def _advance(self, key: str, value: object, error: BaseException | None = None) -> None:
        gen = self.programs[key]
        try:
            instruction = gen.throw(error) if error is not None else gen.send(value)
        except StopIteration:
            self._finished(key)
            return
        except QuotactlError as exc:
            self._failed(key, exc.message)
            return
        except Exception as exc:  # an unexpected bug in a step must not hang the others
            self._failed(key, f"{type(exc).__name__}: {exc}")
            return
        self.hooks.progress(self.steps[key].address, instruction.label)
        if isinstance(instruction, Call):
            self._submit(key, instruction)
        else:
            deadline = self.clock.now() + self.options.wait_timeout
            self.waits[key] = (instruction, deadline, None)
            self.interval = self.options.poll_initial
            self.next_poll = min(self.next_poll, self.clock.now() + self.interval)

    def _submit(self, key: str, call: Call) -> None:
        self.calls[self.pool.submit(call.fn)] = (key, call)

    def _poll(self) -> None:
        refs = {wait.ref for wait, _, _ in self.waits.values()}
        try:
            statuses = self.backend.statuses(refs)
        except BackendError as exc:  # the client's retries are spent: the waits fail
            for key in list(self.waits):
                del self.waits[key]
                self._advance(key, None, exc)
            return
        resolved = False
        now = self.clock.now()
        for key, (wait, deadline, last) in list(self.waits.items()):
            status = statuses.get(wait.ref)
            if status is None and wait.until != "gone":
                since = self.unseen.setdefault(key, now)
                if now - since <= self.options.unseen_grace and now <= deadline:
                    if last != "not visible yet":
                        self.waits[key] = (wait, deadline, "not visible yet")
                        self.hooks.progress(
                            self.steps[key].address, f"{wait.label} (not visible yet)"
                        )
                    continue
            else:
                self.unseen.pop(key, None)
            verdict = _judge(wait, status)
            if verdict is True:
                del self.waits[key]
                resolved = True
                self._advance(key, status)
            elif isinstance(verdict, BackendError):
                del self.waits[key]
                resolved = True
                self._advance(key, None, verdict)
            elif now > deadline:
                del self.waits[key]
                seen = status.status if status else "gone"
                message = f"timed out {wait.label} (still {seen})"
                self._advance(key, None, ApplyTimeoutError(message))
            else:
                seen = status.status if status else "gone"
                if seen != last:
                    self.waits[key] = (wait, deadline, seen)
                    self.hooks.progress(self.steps[key].address, f"{wait.label} ({seen})")
        if resolved:
            self.interval = self.options.poll_initial
        else:
            self.interval = min(self.options.poll_max, self.interval * 1.5)
        self.next_poll = self.clock.now() + self.interval

    # -- bookkeeping ----------------------------------------------------------------------

    def _finished(self, key: str) -> None:
        self.state[key] = Status.DONE
        step = self.steps[key]
        if all(self.state[k] is Status.DONE for k in self.groups[step.address]):
            self._report(step, Status.DONE, None)
        for dependant in sorted(self.dependants[key]):
            self.blocking[dependant] -= 1
            if self.blocking[dependant] == 0 and self.state[dependant] is None:
                self._start(dependant)

    def _failed(self, key: str, message: str) -> None:
        self.state[key] = Status.FAILED
        step = self.steps[key]
        self._report(step, Status.FAILED, message)
        pending = list(self.dependants[key])
        while pending:
            dependant = pending.pop()
            if self.state[dependant] is not None or dependant in self.programs:
                continue
            self.state[dependant] = Status.SKIPPED
            self._report(self.steps[dependant], Status.SKIPPED, f"{step.address} failed")
            pending.extend(self.dependants[dependant])

    def _report(self, step: Step, status: Status, message: str | None) -> None:
        address = step.address
        if address in self.outcomes:
            return
        group = self.groups[address]
        now = self.clock.now()
        begin = min((self.started[k] for k in group if k in self.started), default=now)
        change = next((self.steps[k].change for k in group if self.steps[k].change), None)
        action = change.action if change is not None else None
        outcome = ChangeOutcome(address, action, status, message, now - begin)
        self.outcomes[address] = outcome
        if change is not None or status is not Status.DONE:
            self.hooks.after_change(outcome)


def _judge(wait: WaitFor, status: ResourceStatus | None) -> bool | BackendError:
    if wait.until == "gone":
        return status is None or status.status == LifecycleStatus.DELETED
    if status is None or status.status == LifecycleStatus.DELETED:
        return BackendError(f"{wait.ref.address} disappeared while {wait.label}")
    if status.status == LifecycleStatus.INVALID:
        reason = f": {status.reason}" if status.reason else ""
        return BackendError(f"{wait.ref.address} became INVALID{reason}")
    return status.status == LifecycleStatus.VALID and (
        wait.enabled is None or wait.enabled == status.enabled
    )
