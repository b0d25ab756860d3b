"""What quotactl reads from AWS's service models, as the installed botocore ships them.

Two layers need the same facts from those models: ``config`` checks a job spec's raw
CreateTrainingJob payload against SageMaker's model and capacities against its training
instance types, and ``emulator`` checks Batch requests against Batch's model and capacity
units against the same instance types. Neither may import the other, and ``core`` stays free
of botocore, so the one copy of each lives here, in a leaf package beside ``errors``: it
imports botocore (lazily, only where a model is read) and nothing else of quotactl, and
``config`` and ``emulator`` both import it.

Modules: ``walk`` (a value checked against a botocore shape, member by member, reported as
neutral findings that each caller words its own way) and ``instance_types`` (SageMaker's
training instance types, read fast at start-up).
"""
