#!/bin/bash
# Runs the SageMaker Python SDK's own AWS Batch integration test, unchanged, against
# `quotactl local serve --speed 60` (Batch), with moto in process for S3, STS, IAM and
# SageMaker and the caller an assumed role, as in the SDK's CI.
#
#   tests/sdk_integ/run.sh PATH/TO/sagemaker-python-sdk [PYTEST ARGS...]
#
# PATH is a checkout of https://github.com/aws/sagemaker-python-sdk; the test is
# sagemaker-train/tests/integ/train/aws_batch/test_queue.py. Not part of the suite: the
# suite's own version of the flow is tests/emulator/test_sdk_flow.py.
set -u
SDK=$(cd "$1" && pwd); shift
HERE=$(cd "$(dirname "$0")" && pwd)
STATE=$(mktemp -d)
cd "$STATE"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-west-2
unset AWS_SESSION_TOKEN QUOTACTL_EMULATOR_TIMING
PORT=${PORT:-8766}
quotactl local serve --port "$PORT" --speed 60 >"$STATE/serve.log" 2>&1 &
SERVE=$!
trap 'kill $SERVE 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q AWS_ENDPOINT_URL_BATCH "$STATE/serve.log" && break; sleep 0.1; done
export AWS_ENDPOINT_URL_BATCH=http://127.0.0.1:$PORT
export SAGEMAKER_VALIDATE_ROLE=false  # moto has no IAM policy simulator
cd "$SDK/sagemaker-train"
PYTHONPATH="$SDK/sagemaker-train:$HERE:${PYTHONPATH:-}" python -m pytest -p moto_caller -p no:cacheprovider \
  -W ignore::DeprecationWarning -s -vv tests/integ/train/aws_batch/test_queue.py "$@"
