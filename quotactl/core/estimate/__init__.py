"""Estimates: when a waiting job is expected to start, by running the live queue forward.

``estimate(live_queue, ...)`` (``estimate.py``) runs the queue's unfinished jobs forward
through the scheduling engine the emulator runs (``forward.py``), with the emulator's timing
model, from the state the account reports; the run time of each job comes from
``runtimes.py`` (known, drawn from the share's history, or its time limit). ``positions.py``
gives each job's place in its share and in the queue.
"""

from quotactl.core.estimate.estimate import Estimates, Eta, QueueEstimate, estimate, with_job
from quotactl.core.estimate.runtimes import Basis, DurationSampler, ShareHistory, live_history

__all__ = [
    "Basis",
    "DurationSampler",
    "Estimates",
    "Eta",
    "QueueEstimate",
    "ShareHistory",
    "estimate",
    "live_history",
    "with_job",
]
