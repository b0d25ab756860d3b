"""A share's runnable queue holds and gives up exactly what one heap of its entries would.

The queue keeps a deque per priority for first-time entries and a heap for jobs queued again
at their old place; whatever the mix of new jobs, returned ones (preempted, retried) and
priority changes (which leave a stale entry behind), its ``top`` must be the least entry, and
popping must give the entries up in rank order (hypothesis, against a sorted list).
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from quotactl.core.engine import Job
from quotactl.core.engine.runnable import Entry, RunnableQueue, queue_rank

# new job at a priority | a job queued again (any earlier one) | a priority change | pop
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("new"), st.integers(0, 3)),
        st.tuples(st.just("again"), st.integers(0, 50)),
        st.tuples(st.just("priority"), st.integers(0, 50), st.integers(0, 3)),
        st.tuples(st.just("pop"), st.just(0)),
    ),
    max_size=120,
)


def _job(seq: int, priority: int) -> Job:
    job = Job(f"j{seq}", "s", "t", 1, priority)
    job._seq = job._rank = seq
    return job


def _push(queue: RunnableQueue, held: list[Entry], job: Job) -> None:
    if any(rank == queue_rank(job) for rank, _ in held):
        return  # one place per (priority, submission): the engine never queues a job twice there
    entry = job._entry = queue.push(job)
    assert entry == (queue_rank(job), job)
    held.append(entry)


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_the_queue_orders_like_one_heap(ops: list[tuple[object, ...]]) -> None:
    queue = RunnableQueue()
    held: list[Entry] = []  # the reference: every entry, live or stale
    jobs: list[Job] = []
    for op in ops:
        kind = op[0]
        if kind == "new":
            job = _job(len(jobs), int(str(op[1])))
            jobs.append(job)
            _push(queue, held, job)
        elif kind == "again" and jobs:
            _push(queue, held, jobs[int(str(op[1])) % len(jobs)])
        elif kind == "priority" and jobs:
            job = jobs[int(str(op[1])) % len(jobs)]
            job.priority = int(str(op[2]))
            _push(queue, held, job)
        elif kind == "pop" and held:
            least = min(held, key=lambda e: e[0])
            assert queue.top is least
            queue.pop()
            held.remove(least)
        least_now = min(held, key=lambda e: e[0]) if held else None
        assert queue.top is least_now
        assert sorted(e[0] for e in queue) == sorted(e[0] for e in held)
    drained = []
    while queue.top is not None:
        drained.append(queue.top[0])
        queue.pop()
    assert drained == sorted(e[0] for e in held)
    assert not list(queue)


def test_higher_priority_first_then_submission_order() -> None:
    queue = RunnableQueue()
    jobs = [_job(0, 1), _job(1, 5), _job(2, 1), _job(3, 5)]
    for job in jobs:
        queue.push(job)
    returned = jobs[0]  # preempted: queued again at its old place, ahead of job 2
    order = []
    while queue.top is not None:
        order.append(queue.top[1]._seq)
        queue.pop()
        if order == [1, 3, 0]:
            queue.push(returned)
    assert order == [1, 3, 0, 0, 2]
