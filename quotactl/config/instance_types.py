"""The SageMaker training instance types, from botocore's SageMaker service model.

The list changes with every AWS launch, so it is read from the installed botocore (the
``TrainingInstanceType`` enum of ``sagemaker/<version>/service-2.json``) instead of being kept
by hand: upgrading boto3 is how quotactl learns a new instance type.
"""

from __future__ import annotations

import functools


@functools.cache
def training_instance_types() -> frozenset[str]:
    """Every instance type CreateTrainingJob accepts; loaded once per process (~0.1 s)."""
    from botocore.loaders import Loader

    model = Loader().load_service_model("sagemaker", "service-2")
    return frozenset(model["shapes"]["TrainingInstanceType"]["enum"])
