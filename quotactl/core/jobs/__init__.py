"""Service jobs: what ``submit``, ``jobs`` and ``job ...`` compute, with no I/O.

``spec`` (a validated job spec and the SubmitServiceJob requests it becomes), ``records``
(service jobs as the API reports them), ``analysis`` (one engine pass over a live queue:
``placement`` for ``submit --dry-run``, ``why`` for ``job why`` and ``job priority``).
"""
