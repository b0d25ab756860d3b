"""Capacity accounting for one queue, per (instance type, share): L, U, O and B.

The notation is docs/scheduling.md's.

Everything is indexed by integers for speed: share ``s``, instance type ``t`` and the pair
``k = t * S + s``. Per type the ledger keeps the environment capacity, total usage, the idle
capacity of lending shares (``idle = Σ_lenders max(0, L - O)``) and the borrowed total
(``borrowed = Σ_s max(0, U - L)``). Their difference ``idle - borrowed`` is the *slack*: what a
borrower may still take, and what a lending share's own start consumes. The invariant (the
"Invariant" rule of docs/scheduling.md) is ``slack >= 0`` and ``used <= capacity`` for every
type.

With ``metered=True`` (the simulator) every change also integrates, per pair, instance-seconds
on borrowed capacity (``max(0, U - L)``) and instance-seconds lent. (Instance-seconds used are
counted per job by the caller: own = used - borrowed.) Borrowed capacity is pooled (AWS does
not say whose instance a borrower holds), so lending is attributed to lending shares in
proportion to their idle capacity at each moment: with ``rate = borrowed / idle`` integrated
over time as ``A[t]``, a lender with ``idle_k`` idle instances lends ``idle_k * dA``. Each
update is O(1), and nearly free while nobody borrows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quotactl.core.engine import reasons
from quotactl.core.resources.desired import UNLIMITED, Strategy

if TYPE_CHECKING:
    from quotactl.core.engine.model import QueueModel

NO_CAP = 1 << 60
"""Stands for an unlimited borrow allowance."""


class Meters:
    """Borrowed and lent instance-seconds per pair ``k``, and the lending rate sum per type."""

    __slots__ = ("borrowed", "lent", "mark", "rate_since", "rate_sum", "since")

    def __init__(self) -> None:
        self.borrowed: list[float] = []
        self.lent: list[float] = []
        self.since: list[float] = []
        self.mark: list[float] = []
        self.rate_since: list[float] = []
        self.rate_sum: list[float] = []

    def grow(self, pairs: int) -> None:
        for series in (self.borrowed, self.lent, self.since, self.mark):
            series += [0.0] * pairs
        self.rate_since.append(0.0)
        self.rate_sum.append(0.0)


class Capacity:
    """Limits, usage and the per-type totals derived from them; updated in O(1) per change."""

    __slots__ = (
        "S",
        "_borrow_percent",
        "_queue",
        "bcap",
        "borrowable",
        "borrowed",
        "cap",
        "has_limit",
        "idle",
        "in_share",
        "lends",
        "lends_k",
        "limit",
        "max_count",
        "meters",
        "share_names",
        "strategies",
        "type_index",
        "types",
        "usage",
        "used",
    )

    def __init__(self, queue: QueueModel, *, metered: bool = False) -> None:
        shares = queue.shares
        self.meters = Meters() if metered else None
        self.S = len(shares)
        self.share_names = [s.name for s in shares]
        self.strategies = [s.strategy for s in shares]
        self.lends = [s.strategy.lends for s in shares]
        self.in_share = [s.in_share_preemption for s in shares]
        self._borrow_percent = [
            (s.borrow_limit if s.strategy is Strategy.LEND_AND_BORROW else 0) for s in shares
        ]
        self.types: list[str] = []
        self.type_index: dict[str, int] = {}
        self.cap: list[int] = []
        self.used: list[int] = []
        self.idle: list[int] = []
        self.borrowed: list[int] = []
        self.limit: list[int] = []
        self.has_limit: list[bool] = []
        self.bcap: list[int] = []
        self.lends_k: list[bool] = []
        self.usage: list[int] = []
        self.max_count: list[int] = []
        self.borrowable: list[int] = []
        self._queue = queue
        names = list(queue.capacity)
        names += sorted({t for s in shares for t in s.limits} - set(names))
        for name in names:
            self.add_type(name)

    def add_type(self, name: str) -> int:
        """Index a new instance type (one the environment may lack: jobs of it are stuck)."""
        t = len(self.types)
        self.types.append(name)
        self.type_index[name] = t
        cap = int(self._queue.capacity.get(name, 0))
        self.cap.append(cap)
        self.used.append(0)
        limits = [int(s.limits.get(name, 0)) for s in self._queue.shares]
        self.idle.append(sum(lim for lim, lend in zip(limits, self.lends, strict=True) if lend))
        self.borrowed.append(0)
        lendable = sum(lim for lim, lend in zip(limits, self.lends, strict=True) if lend)
        for s, share in enumerate(self._queue.shares):
            lim = limits[s]
            percent = self._borrow_percent[s]
            if share.strategy is not Strategy.LEND_AND_BORROW or name not in share.limits:
                bcap = 0
            elif percent == UNLIMITED:
                bcap = NO_CAP
            else:
                bcap = lim * percent // 100  # whole instances: 150 % of 3 is 4 more, not 4.5
            others = lendable - (lim if self.lends[s] else 0)
            self.limit.append(lim)
            self.has_limit.append(name in share.limits)
            self.bcap.append(bcap)
            self.lends_k.append(self.lends[s])
            self.usage.append(0)
            self.borrowable.append(others)
            self.max_count.append(min(cap, lim + min(bcap, others)) if name in share.limits else 0)
        if self.meters is not None:
            self.meters.grow(self.S)
        return t

    def change(self, k: int, t: int, delta: int, now: float) -> int:
        """Add ``delta`` instances, at time ``now``, to the usage of pair ``k`` (of type ``t``).

        Returns the change of the pair's borrowed instances B (positive when a start borrows).
        With U going from ``u`` to ``v``: B = max(0, U - L) changes by ``b_v - b_u``, and own
        usage O = U - B by the rest of ``delta``, which a lending share's idle capacity loses.
        """
        u = self.usage[k]
        v = u + delta
        lim = self.limit[k]
        b_u = u - lim if u > lim else 0
        b_v = v - lim if v > lim else 0
        lends = self.lends_k[k]
        meters = self.meters
        if meters is not None:
            # integrals up to ``now``, with the rates that held until now
            if b_u:
                meters.borrowed[k] += b_u * (now - meters.since[k])
                meters.since[k] = now
            elif b_v:
                meters.since[k] = now
            rate_sum = meters.rate_sum[t]
            borrowed = self.borrowed[t]
            if borrowed:
                rate_since = meters.rate_since
                idle = self.idle[t]
                if idle:  # none: a lender's lowered limit left borrowers over (nobody lends)
                    rate_sum += borrowed * (now - rate_since[t]) / idle
                    meters.rate_sum[t] = rate_sum
                rate_since[t] = now
            elif b_v:
                meters.rate_since[t] = now  # borrowing starts: the rate counts from now
            if lends:
                mark = meters.mark
                if rate_sum != mark[k]:
                    if u < lim:
                        meters.lent[k] += (lim - u) * (rate_sum - mark[k])
                    mark[k] = rate_sum
        self.usage[k] = v
        self.used[t] += delta
        db = b_v - b_u
        if db:
            self.borrowed[t] += db
        if lends and delta != db:
            self.idle[t] -= delta - db
        return db

    def fits(self, k: int, t: int, n: int) -> bool:
        """Can a job of ``n`` instances of pair ``k`` start now without preempting anything?"""
        u = self.usage[k]
        if u + n > self.limit[k] + self.bcap[k] or self.used[t] + n > self.cap[t]:
            return False
        return not self.lends_k[k] or self.idle[t] - self.borrowed[t] >= n

    def misconfiguration(self, k: int, n: int) -> str | None:
        """AWS's MISCONFIGURATION statusReason if ``n`` instances can never run in pair ``k``."""
        if n <= self.max_count[k]:
            return None
        t, s = divmod(k, self.S)
        lim = self.limit[k]
        if n > self.cap[t]:
            return reasons.SERVICE_ENVIRONMENT_MAX_RESOURCE
        if not self.has_limit[k] or self.strategies[s] is not Strategy.LEND_AND_BORROW:
            return reasons.QUOTA_SHARE_LIMIT
        if n > lim + self.bcap[k]:
            return reasons.QUOTA_SHARE_BORROW_LIMIT
        return reasons.QUOTA_SHARE_BORROWABLE

    def own(self, k: int) -> int:
        """O = min(U, L)."""
        return min(self.usage[k], self.limit[k])
