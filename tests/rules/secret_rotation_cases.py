"""Fixtures of the secret-rotation rules (issue 49), in the wire format the engines send: a Secrets
Manager secret with the `SecretRotation` RotateSecret takes (RotationLambdaARN, RotationRules
AutomaticallyAfterDays) and the Lambda permission AddPermission takes (Principal, SourceArn); a Secret
Manager secret with its v1 `rotation` (nextRotationTime, rotationPeriod as a seconds duration) and
`topics`."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as aws_types
from tests.rules.cases import Case, res
from tests.rules.cases import secret as aws_secret
from tests.rules.gcp_cases import secret as gcp_secret

FUNCTION = "arn:aws:lambda:us-west-2:123456789012:function:acme-rotate-wandb"
SECRET_ARN = "arn:aws:secretsmanager:us-west-2:123456789012:secret:acme-prod-secrets/wandb-api-key-AbCdEf"
TOPIC = "projects/acme/topics/acme-prod-secrets-rotation"


def rotation(**props: Any) -> Any:
    return res(aws_types.SECRET_ROTATION, "wandb-rotation", {
        "secretId": "id-wandb", "rotationLambdaArn": FUNCTION, "rotationRules": {"automaticallyAfterDays": 30},
        **props})


def invoke(**props: Any) -> Any:
    return res(aws_types.LAMBDA_PERMISSION, "wandb-rotation-invoke", {
        "action": "lambda:InvokeFunction", "function": FUNCTION, "principal": "secretsmanager.amazonaws.com",
        "sourceArn": SECRET_ARN, **props})


# 30 days = 30 x 86400 s = 2592000 s.
SCHEDULE = {"nextRotationTime": "2027-01-04T09:00:00Z", "rotationPeriod": "2592000s"}

SECRET_ROTATION_CASES: dict[str, Case] = {
    "AP-SM-003": Case(
        passing=[aws_secret("wandb"), rotation(), invoke()],
        failing=[aws_secret("wandb"), rotation(rotationRules={}, rotationLambdaArn=None), invoke()],
        expect="rotation names no rotation function", target="wandb"),
    "AP-SM-004": Case(
        passing=[aws_secret("wandb"), rotation(), invoke()],
        failing=[aws_secret("wandb"), rotation(), invoke(sourceArn=None, sourceAccount="123456789012")],
        expect=f"Secrets Manager may invoke {FUNCTION} for any secret of this account: set source_arn",
        target="wandb-rotation-invoke"),
    "AP-GSM-003": Case(
        passing=[gcp_secret("hf-token", rotation=SCHEDULE, topics=[{"name": TOPIC}])],
        failing=[gcp_secret("hf-token")],
        expect="secret never rotates: no rotation schedule", target="hf-token"),
    "AP-GSM-004": Case(
        passing=[gcp_secret("hf-token", rotation=SCHEDULE, topics=[{"name": TOPIC}])],
        failing=[gcp_secret("hf-token", rotation={**SCHEDULE, "rotationPeriod": "60s"}),
                 gcp_secret("wandb", rotation={"rotationPeriod": "2592000s"}, topics=[{"name": TOPIC}])],
        expect="rotation schedule without topics: Secret Manager has nowhere to send the rotation notification",
        target="hf-token", also=("wandb",)),
}
