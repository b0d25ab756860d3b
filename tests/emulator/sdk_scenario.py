"""Run by test_serve.py in a subprocess: the SageMaker SDK's own TrainingQueue against
`quotactl local serve` (AWS_ENDPOINT_URL_BATCH). Prints one JSON line of what it saw.

A separate process because the SDK's imports raise DeprecationWarnings of its own, and the
test suite turns warnings into errors. ModelTrainer is configured to make no AWS call
(full role ARN, explicit S3 output, no source code, SAGEMAKER_VALIDATE_ROLE=false).
"""

from __future__ import annotations

import json
import sys

from sagemaker.core.training.configs import Compute, OutputDataConfig
from sagemaker.train.aws_batch.training_queue import TrainingQueue
from sagemaker.train.model_trainer import ModelTrainer

queue_name, share = sys.argv[1], sys.argv[2]
trainer = ModelTrainer(
    training_image="123456789012.dkr.ecr.us-east-1.amazonaws.com/train:latest",
    role="arn:aws:iam::123456789012:role/SageMakerRole",
    compute=Compute(instance_type="ml.g5.xlarge", instance_count=1),
    output_data_config=OutputDataConfig(s3_output_path="s3://bucket/output"),
    base_job_name="sdk",
)
queue = TrainingQueue(queue_name)
job = queue.submit(
    training_job=trainer, inputs=None, job_name="sdk-job", quota_share_name=share, priority=3
)
statuses = [job.describe()["status"] for _ in range(4)]
listed = queue.list_jobs_by_share(quota_share_name=share, status="RUNNING")
job.update(scheduling_priority=7)
priority = job.describe()["schedulingPriority"]
job.terminate(reason="finished with it")
final = job.describe()
print(
    json.dumps(
        {
            "arn": job.job_arn,
            "statuses": statuses,
            "listed": [j.job_arn for j in listed],
            "priority": priority,
            "final": [final["status"], final["statusReason"], final["isTerminated"]],
            "payload": json.loads(final["serviceRequestPayload"]),
        }
    )
)
