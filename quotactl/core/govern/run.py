"""What one governor cycle did: its actions with their results, the drift it left alone, and
whether it ran at all (a cycle is skipped, never queued, while another holds the stack lock).

``GovernCycle`` is the result ``quotactl govern`` shows and the value ``local advance --govern``
gets from each cycle it runs; ``log_records`` are the JSON Lines the ``--log`` file gains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.results import Failable

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

    from quotactl.core.govern.cycle import Action, Drift
    from quotactl.core.govern.state import PolicyState
    from quotactl.errors import QuotactlError


class Result:
    """What became of an action."""

    APPLIED = "applied"
    BLOCKED = "blocked"
    """Applied as far as it disrupts nothing; the rest waits for running jobs to end."""
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    """An action and its result (None on a dry run: nothing was applied)."""

    action: Action
    result: str | None
    error: str | None = None

    def record(self, at: datetime) -> dict[str, Any]:
        """The action's JSON Lines record in the ``--log`` file."""
        action = self.action
        record = log_record(
            at,
            action.policy,
            action.kind,
            action.address,
            action.before,
            action.after,
            action.reason,
            self.result,
        )
        if action.blocked:
            record["target"] = dict(action.target)
        if action.until is not None:
            record["until"] = _iso(action.until)
        if self.error is not None:
            record["error"] = self.error
        return record


@dataclass(frozen=True)
class GovernCycle(Failable):
    """One cycle at ``at`` (the account's time) over stack ``stack``."""

    at: datetime
    stack: str
    outcomes: tuple[Outcome, ...] = ()
    drift: tuple[Drift, ...] = ()
    state: PolicyState | None = None
    budget_tags: Mapping[str, str] = field(default_factory=dict)
    dry_run: bool = False
    skipped: str | None = None
    """Why the cycle did nothing (another holds the stack lock); None when it ran."""
    errors: tuple[str, ...] = ()
    """Failures outside an action (a budget tag that could not be written)."""

    @property
    def applied(self) -> bool:
        """Some action changed the account."""
        return any(o.result in (Result.APPLIED, Result.BLOCKED) for o in self.outcomes)

    @property
    def blocked(self) -> bool:
        """Some action was held back (it would disrupt running work)."""
        return any(o.action.blocked for o in self.outcomes)

    @property
    def failed(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.result == Result.FAILED)

    def log_records(self) -> list[dict[str, Any]]:
        """One record per action (none for a skipped cycle or a dry run)."""
        if self.dry_run or self.skipped:
            return []
        return [o.record(self.at) for o in self.outcomes]

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": _iso(self.at),
            "stack": self.stack,
            "dry_run": self.dry_run,
            "skipped": self.skipped,
            "actions": [
                {**o.action.to_dict(), "result": o.result, "error": o.error} for o in self.outcomes
            ],
            "drift": [
                {"address": d.address, "field": d.field, "live": d.live, "configured": d.configured}
                for d in self.drift
            ],
            "policies": self.state.to_dict() if self.state is not None else None,
            "errors": list(self.errors),
        }

    def failure(self) -> QuotactlError | None:
        from quotactl.errors import GovernFailedError

        failed = self.failed
        if not failed and not self.errors:
            return None
        count = len(failed) + len(self.errors)
        first = failed[0].action.address if failed else self.errors[0]
        return GovernFailedError(
            f"{count} governor change{'' if count == 1 else 's'} failed (first: {first})",
            hint="the next cycle tries again; each failure is in the output and the log",
        )


def log_record(
    at: datetime,
    policy: str | None,
    kind: str,
    address: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    reason: str,
    result: str | None,
) -> dict[str, Any]:
    """One line of a ``--log`` file (govern's actions, apply's changes, history's readings of
    the shares' settings): one format for all (``quotactl.core.history.settings`` reads it)."""
    return {
        "at": _iso(at),
        "policy": policy,
        "kind": kind,
        "address": address,
        "before": dict(before) if before is not None else None,
        "after": dict(after) if after is not None else None,
        "reason": reason,
        "result": result,
    }


def _iso(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class GovernRun(Failable):
    """``govern``'s cycles, one (``--once``) or one every ``every`` seconds until stopped;
    iterating runs them (a view draws each as it ends). What the cycles did is kept for the
    exit code: any failure, any change applied, any change held back."""

    def __init__(self, cycles: Iterable[GovernCycle], every: float | None = None) -> None:
        self._cycles = cycles
        self.every = every
        self.seen: list[GovernCycle] = []

    def __iter__(self) -> Iterator[GovernCycle]:
        for cycle in self._cycles:
            self.seen.append(cycle)
            yield cycle

    @property
    def applied(self) -> bool:
        """Some cycle changed the account (on a dry run: would have)."""
        return any(c.applied or (c.dry_run and c.outcomes) for c in self.seen)

    @property
    def blocked(self) -> bool:
        """Some cycle held a change back (it would disrupt running work)."""
        return any(c.blocked for c in self.seen)

    def failure(self) -> QuotactlError | None:
        for cycle in reversed(self.seen):
            if (failed := cycle.failure()) is not None:
                return failed
        return None
