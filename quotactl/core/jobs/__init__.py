"""Service jobs: what ``submit``, ``jobs`` and ``job ...`` compute, with no I/O.

``spec`` (a checked job spec and the SubmitServiceJob requests it becomes), ``records`` (what
``job describe`` adds to a live job), ``analysis`` (one scheduling-engine pass over a live
queue for one job), ``placement`` (``submit --dry-run``), ``why`` (wait codes and preemption
history), ``reprioritise`` (``job priority``).
"""
