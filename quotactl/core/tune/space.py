"""What ``tune`` may change in one queue, and the moves between configurations.

A *candidate* gives every tunable share of the queue (its queue's shares, less those of fixed
teams and disabled ones) a ``Setting``: a limit per instance type it already names, a sharing
strategy and a borrow limit. Moving instances keeps, per instance type, the sum of the tunable
shares' limits (so the environment's total stays claimed as it was); every limit stays between
1 (AWS's least ``maxCapacity``) and the environment's capacity of that type. A borrow limit
means something only with LEND_AND_BORROW, so other strategies carry the default (unlimited).

``Space.neighbours`` are the moves of one step from a candidate: ``step`` instances of one type
from one share to another (the step halves level by level down to one instance), and every
other strategy or borrow limit of one share. ``Space.points`` enumerates the whole space, for
one small enough to try in full.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from quotactl.core.resources.desired import UNLIMITED, DesiredState, ShareSpec, Strategy

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

BORROW_LADDER = (50, 100, 200, UNLIMITED)
"""The borrow limits tried for a LEND_AND_BORROW share (besides the one it has)."""


class Knob(StrEnum):
    """What ``--vary`` may name."""

    CAPACITY = "capacity"
    SHARING = "sharing"
    BORROW_LIMIT = "borrow_limit"


@dataclass(frozen=True, order=True)
class Setting:
    """One share's tunable values: limits in the order of ``Tunable.types``."""

    limits: tuple[int, ...]
    strategy: Strategy
    borrow_limit: int


Candidate = tuple[Setting, ...]
"""A setting per tunable share, in the order of ``Space.shares``."""


@dataclass(frozen=True)
class Tunable:
    """A share tune may change: its address, team, instance types and the options it has."""

    spec: ShareSpec
    types: tuple[str, ...]
    sharing: tuple[tuple[Strategy, int], ...]
    """(strategy, borrow limit) pairs it may take, its own first."""


@dataclass(frozen=True)
class Space:
    queue: str
    shares: tuple[Tunable, ...]
    totals: dict[str, int]
    """Per instance type: the sum of the tunable shares' limits, kept by every move."""
    ceilings: dict[str, int]
    """Per instance type: the environment's capacity, the most one share may hold."""
    vary: frozenset[Knob]

    @classmethod
    def of(
        cls,
        desired: DesiredState,
        queue: str,
        vary: Iterable[Knob] = tuple(Knob),
        fixed: Iterable[str] = (),
    ) -> Space:
        """The space of ``queue`` in ``desired``; the shares of ``fixed`` teams stay as they are."""
        knobs = frozenset(vary)
        keep = set(fixed)
        spec = next(q for q in desired.queues if q.name == queue)
        env = next((e for e in desired.environments if e.name == spec.environment), None)
        ceilings = dict(env.capacity) if env else {}
        shares = tuple(
            Tunable(s, tuple(sorted(s.capacity)), _sharing_options(s, knobs))
            for s in desired.shares
            if s.queue == queue and s.enabled and (s.team is None or s.team not in keep)
        )
        totals: dict[str, int] = {}
        for share in shares:
            for t in share.types:
                totals[t] = totals.get(t, 0) + share.spec.capacity[t]
        return cls(queue, shares, totals, ceilings, knobs)

    @property
    def current(self) -> Candidate:
        return tuple(
            Setting(
                tuple(s.spec.capacity[t] for t in s.types), s.spec.strategy, s.spec.borrow_limit
            )
            for s in self.shares
        )

    def apply(self, desired: DesiredState, candidate: Candidate) -> DesiredState:
        """``desired`` with the tunable shares set as ``candidate`` says."""
        settings = {
            (s.spec.queue, s.spec.name): (s, c) for s, c in zip(self.shares, candidate, strict=True)
        }
        shares = []
        for spec in desired.shares:
            found = settings.get((spec.queue, spec.name))
            if found is None:
                shares.append(spec)
                continue
            tunable, setting = found
            capacity = dict(spec.capacity)
            capacity.update(zip(tunable.types, setting.limits, strict=True))
            shares.append(
                replace(
                    spec,
                    capacity=capacity,
                    strategy=setting.strategy,
                    borrow_limit=setting.borrow_limit,
                )
            )
        return replace(desired, shares=tuple(shares))

    def _bounds(self, t: str) -> tuple[int, int]:
        """The least and most one share may hold of ``t`` when others keep one each."""
        holders = sum(1 for s in self.shares if t in s.types)
        most = self.totals[t] - (holders - 1)
        return 1, min(most, self.ceilings.get(t, most))

    def _movable(self) -> list[str]:
        if Knob.CAPACITY not in self.vary:
            return []
        return [t for t in sorted(self.totals) if sum(t in s.types for s in self.shares) > 1]

    @property
    def levels(self) -> int:
        """How many step sizes the moves of instances take (halving down to one instance)."""
        most = max((self.totals[t] for t in self._movable()), default=1)
        return max(1, (most - 1).bit_length())

    def neighbours(self, candidate: Candidate, level: int) -> list[Candidate]:
        """The candidates one move from ``candidate`` at ``level``, in a fixed order."""
        found: list[Candidate] = []
        for t in self._movable():
            step = max(1, self.totals[t] >> (level + 1))
            low, high = self._bounds(t)
            holders = [i for i, s in enumerate(self.shares) if t in s.types]
            for a, b in itertools.permutations(holders, 2):
                ia, ib = self.shares[a].types.index(t), self.shares[b].types.index(t)
                have, get = candidate[a].limits[ia], candidate[b].limits[ib]
                amount = min(step, have - low, high - get)
                if amount <= 0:
                    continue
                moved = list(candidate)
                moved[a] = _with_limit(candidate[a], ia, have - amount)
                moved[b] = _with_limit(candidate[b], ib, get + amount)
                found.append(tuple(moved))
        for i, share in enumerate(self.shares):
            for strategy, borrow in share.sharing:
                setting = candidate[i]
                if (strategy, borrow) == (setting.strategy, setting.borrow_limit):
                    continue
                changed = list(candidate)
                changed[i] = replace(setting, strategy=strategy, borrow_limit=borrow)
                found.append(tuple(changed))
        return found

    def size(self, limit: int) -> int:
        """How many candidates the space holds, counted up to ``limit`` (then ``limit + 1``)."""
        total = 1
        for t in self._movable():
            total *= _splits(self.totals[t], self._holders(t), *self._bounds(t))
            if total > limit:
                return limit + 1
        for share in self.shares:
            total *= len(share.sharing)
            if total > limit:
                return limit + 1
        return total

    def _holders(self, t: str) -> int:
        return sum(1 for s in self.shares if t in s.types)

    def points(self) -> Iterator[Candidate]:
        """Every candidate, in a fixed order (the current one among them)."""
        movable = self._movable()
        per_type = [
            list(_compositions(self.totals[t], self._holders(t), *self._bounds(t))) for t in movable
        ]
        base = self.current
        for splits in itertools.product(*per_type):
            for options in itertools.product(*(s.sharing for s in self.shares)):
                out = []
                for i, share in enumerate(self.shares):
                    limits = list(base[i].limits)
                    for t, split in zip(movable, splits, strict=True):
                        if t in share.types:
                            k = [j for j, s in enumerate(self.shares) if t in s.types].index(i)
                            limits[share.types.index(t)] = split[k]
                    out.append(Setting(tuple(limits), *options[i]))
                yield tuple(out)


def fingerprint(space: Space, candidate: Candidate) -> str:
    """A short digest of what the candidate sets: equal configurations, equal fingerprints."""
    body = [
        [
            s.spec.queue,
            s.spec.name,
            dict(zip(s.types, c.limits, strict=True)),
            c.strategy.value,
            c.borrow_limit,
        ]
        for s, c in zip(space.shares, candidate, strict=True)
    ]
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _with_limit(setting: Setting, index: int, value: int) -> Setting:
    limits = list(setting.limits)
    limits[index] = value
    return replace(setting, limits=tuple(limits))


def _sharing_options(share: ShareSpec, knobs: frozenset[Knob]) -> tuple[tuple[Strategy, int], ...]:
    own = (share.strategy, share.borrow_limit)
    strategies: Sequence[Strategy] = tuple(Strategy) if Knob.SHARING in knobs else (share.strategy,)
    options = [own]
    for strategy in strategies:
        if strategy is not Strategy.LEND_AND_BORROW:
            options.append((strategy, UNLIMITED))
            continue
        if Knob.BORROW_LIMIT in knobs:
            options += [(strategy, b) for b in BORROW_LADDER]
        else:
            kept = share.borrow_limit if share.strategy is Strategy.LEND_AND_BORROW else UNLIMITED
            options.append((strategy, kept))
    return tuple(dict.fromkeys(options))


def _splits(total: int, parts: int, low: int, high: int) -> int:
    """How many ways ``total`` splits into ``parts`` values each within [low, high]."""
    ways = {0: 1}
    for _ in range(parts):
        nxt: dict[int, int] = {}
        for s, n in ways.items():
            for v in range(low, high + 1):
                if s + v <= total:
                    nxt[s + v] = nxt.get(s + v, 0) + n
        ways = nxt
    return ways.get(total, 0)


def _compositions(total: int, parts: int, low: int, high: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        if low <= total <= high:
            yield (total,)
        return
    for v in range(low, min(high, total) + 1):
        for rest in _compositions(total - v, parts - 1, low, high):
            yield (v, *rest)
