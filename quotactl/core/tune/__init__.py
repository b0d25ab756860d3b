"""Tune: search changes to a queue's shares for the best objective on a trace.

``Space.of`` says what may change (instances moved between shares with each type's total
kept, strategies, borrow limits); ``search`` proposes candidates in fixed batches, has an
executor replay them with the simulator (``replay``) and returns a ``TuneResult``: every trial,
the front of objective against work lost, and the best. Rules are ``Constraints``.
"""

from quotactl.core.tune.constraints import RuleConstraints
from quotactl.core.tune.diff import Edit, edits
from quotactl.core.tune.objective import Objective, worsened
from quotactl.core.tune.replay import replay
from quotactl.core.tune.result import Trial, TuneResult, pareto
from quotactl.core.tune.search import BATCH, Constraints, Settings, Unconstrained, search
from quotactl.core.tune.space import Candidate, Knob, Setting, Space, Tunable, fingerprint

__all__ = [
    "BATCH",
    "Candidate",
    "Constraints",
    "Edit",
    "Knob",
    "Objective",
    "RuleConstraints",
    "Setting",
    "Settings",
    "Space",
    "Trial",
    "Tunable",
    "TuneResult",
    "Unconstrained",
    "edits",
    "fingerprint",
    "pareto",
    "replay",
    "search",
    "worsened",
]
