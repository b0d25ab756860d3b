"""What a change does to the policies: the configuration's windows, budgets and aging against
the records the account holds (``record.py``), each added, removed or altered, with the next
times it takes effect, so a pull request that edits a weekend window is visible on a Tuesday."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from quotactl.core.govern.record import (
    AGING_TAG,
    BUDGET_RULE_TAG,
    WINDOW_TAG_PREFIX,
    decode_aging,
    decode_budget,
    decode_window,
    encode_aging,
    encode_budget,
    encode_window,
    is_digest,
    sealed,
)
from quotactl.core.govern.usage import period_end
from quotactl.core.govern.windows import next_change_of, window_in_force, zone
from quotactl.core.resources.desired import STACK_TAG, TEAM_TAG, address_of

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from quotactl.core.resources.desired import DesiredState, ShareSpec, Window

ADDED, REMOVED, ALTERED = "added", "removed", "altered"


@dataclass(frozen=True)
class FieldDelta:
    """One field of a policy, before -> after (None: absent)."""

    field: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class PolicyChange:
    """A window, budget or aging that the change adds, removes or alters, and when it next
    takes effect (a window: its next start and end; a budget: its next period)."""

    address: str
    policy: str
    action: str
    fields: tuple[FieldDelta, ...] = ()
    next_start: datetime | None = None
    next_end: datetime | None = None
    timezone: str | None = None
    """The window's zone, to say its times on its own clock."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "policy": self.policy,
            "action": self.action,
            "fields": [
                {"field": f.field, "before": f.before, "after": f.after} for f in self.fields
            ],
            "next_start": _iso(self.next_start),
            "next_end": _iso(self.next_end),
            "timezone": self.timezone,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicyChange:
        def text(value: object) -> str | None:
            return None if value is None else str(value)

        return cls(
            address=str(data["address"]),
            policy=str(data["policy"]),
            action=str(data["action"]),
            fields=tuple(
                FieldDelta(str(f["field"]), text(f["before"]), text(f["after"]))
                for f in data["fields"]
            ),
            next_start=_instant(data["next_start"]),
            next_end=_instant(data["next_end"]),
            timezone=text(data["timezone"]),
        )


def _iso(instant: datetime | None) -> str | None:
    return instant.astimezone(UTC).isoformat().replace("+00:00", "Z") if instant else None


def _instant(value: object) -> datetime | None:
    if value is None:
        return None
    instant = datetime.fromisoformat(str(value))
    if instant.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone")
    return instant.astimezone(UTC)


def _shown(key: str, value: str) -> str:
    """A record field as a plan shows it: maps as ``{type: count}``, lists with commas."""
    if key in ("capacity", "instance_hours"):
        entries = (p.rsplit(":", 1) for p in value.split("+"))
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    return value.replace("+", ", ")


def _fields(before: str | None, after: str | None) -> tuple[FieldDelta, ...]:
    """Field by field, from the two encodings (none when either is a digest)."""
    if (before and is_digest(before)) or (after and is_digest(after)):
        return ()
    old = dict(p.split("=", 1) for p in before.split(" ")) if before else {}
    new = dict(p.split("=", 1) for p in after.split(" ")) if after else {}
    keys = [*old, *(k for k in new if k not in old)]
    return tuple(
        FieldDelta(
            k, _shown(k, old[k]) if k in old else None, _shown(k, new[k]) if k in new else None
        )
        for k in keys
        if old.get(k) != new.get(k)
    )


def _readable(value: str | None, decode: Callable[[str], object]) -> str | None:
    """``value`` if it decodes (a digest or a damaged record reads as None)."""
    if value is None:
        return None
    try:
        decode(value)
    except (ValueError, KeyError, IndexError):
        return None
    return value


def _change(
    address: str, policy: str, live: str | None, wanted: str | None, readable: str | None
) -> PolicyChange | None:
    if live == (sealed(wanted) if wanted is not None else None):
        return None
    if live is None:
        return PolicyChange(address, policy, ADDED, _fields(None, wanted))
    if wanted is None:
        return PolicyChange(address, policy, REMOVED, _fields(readable, None))
    if readable is None:
        return PolicyChange(address, policy, ALTERED)
    return PolicyChange(address, policy, ALTERED, _fields(readable, wanted))


def _window_times(window: Window, share: ShareSpec, now: datetime) -> PolicyChange:
    """When ``window`` (alone) next starts and ends after ``now``."""
    alone = replace(share, schedule=(window,))
    first = next_change_of(alone, now)
    if window_in_force(alone, now) is not None:  # in force now: it ends, then starts again
        end = first
        start = next_change_of(alone, end) if end else None
    else:
        start = first
        end = next_change_of(alone, start) if start else None
    return PolicyChange("", "", "", next_start=start, next_end=end, timezone=window.when.timezone)


def policy_changes(
    desired: DesiredState, live: Mapping[str, Mapping[str, str]], now: datetime
) -> tuple[PolicyChange, ...]:
    """Each policy of ``desired`` that differs from the records in ``live`` (tags by
    address, this stack's resources), and each record ``desired`` no longer declares."""
    found: list[PolicyChange] = []
    shares = {s.address: s for s in desired.shares}
    for address in sorted({*shares, *live}):
        tags = live.get(address, {})
        if not address.startswith("share.") or (
            address not in shares and tags.get(STACK_TAG) != desired.stack
        ):
            continue
        share = shares.get(address)
        wanted = {w.name: w for w in share.schedule} if share else {}
        orders = {w.name: n for n, w in enumerate(share.schedule, 1)} if share else {}
        recorded = {
            k.removeprefix(WINDOW_TAG_PREFIX): v
            for k, v in tags.items()
            if k.startswith(WINDOW_TAG_PREFIX)
        }
        for name in [*wanted, *sorted(n for n in recorded if n not in wanted)]:
            window = wanted.get(name)
            value = recorded.get(name)
            readable = _readable(value, partial(decode_window, name))
            change = _change(
                address,
                f"window {name}",
                value,
                encode_window(window, orders[name]) if window else None,
                readable,
            )
            if change is None:
                continue
            if window is not None and share is not None:
                times = _window_times(window, share, now)
                change = replace(
                    change,
                    next_start=times.next_start,
                    next_end=times.next_end,
                    timezone=times.timezone,
                )
            found.append(change)
    budgets = {t.name: t.budget for t in desired.teams if t.budget is not None}
    teams_live: dict[str, str] = {}
    for address in sorted(live):
        tags = live[address]
        team = tags.get(TEAM_TAG)
        ours = address.startswith("share.") and tags.get(STACK_TAG) == desired.stack
        if ours and team and BUDGET_RULE_TAG in tags:
            teams_live.setdefault(team, tags[BUDGET_RULE_TAG])
    for team in sorted({*budgets, *teams_live}):
        budget = budgets.get(team)
        value = teams_live.get(team)
        change = _change(
            address_of("team", team),
            "budget",
            value,
            encode_budget(budget) if budget else None,
            _readable(value, decode_budget),
        )
        if change is not None:
            if budget is not None:
                change = replace(change, next_start=period_end(budget.every, now))
            found.append(change)
    queues = {q.address: q for q in desired.queues}
    for address in sorted({*queues, *(a for a in live if a.startswith("queue."))}):
        queue = queues.get(address)
        tags = live.get(address, {})
        if queue is None and tags.get(STACK_TAG) != desired.stack:
            continue
        value = tags.get(AGING_TAG)
        aging = queue.aging if queue else None
        change = _change(
            address,
            "aging",
            value,
            encode_aging(aging) if aging else None,
            _readable(value, decode_aging),
        )
        if change is not None:
            found.append(change)
    return tuple(found)


def local_minute(instant: datetime, timezone: str | None) -> str:
    """``2027-01-16 00:00 Europe/Berlin`` (UTC: ``2027-01-16T00:00Z``)."""
    if timezone is None or timezone == "UTC":
        return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
    local = instant.astimezone(zone(timezone)).strftime("%a %Y-%m-%d %H:%M")
    return f"{local} {timezone} ({instant.astimezone(UTC).strftime('%Y-%m-%dT%H:%MZ')})"
