"""`WorkloadRole`: an IAM role for one workload, assumable only by its Kubernetes service account.

Trust: the cluster's OIDC provider, with `sub` pinned to exactly one service account and `aud`
to STS. Permissions: S3 actions on the declared prefixes only, the data key only through S3,
and the declared secrets only. No `*` action, no `*` resource where the service can scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import policy_json, service_account_trust
from accelplane.declaration import BucketAccess, BucketRole, Workload

_READ = ["s3:GetObject", "s3:GetObjectVersion"]
_WRITE = ["s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
_DELETE = ["s3:DeleteObject"]


@dataclass(frozen=True)
class WorkloadRoleArgs:
    workload: Workload
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer_host: pulumi.Output[str]
    bucket_arns: Mapping[BucketRole, pulumi.Output[str]]
    data_key_arn: pulumi.Input[str]
    secret_arns: Mapping[str, pulumi.Output[str]]
    secrets_key_arn: pulumi.Input[str]
    region: str
    tags: Mapping[str, str]


class WorkloadRole(pulumi.ComponentResource):
    arn: pulumi.Output[str]

    def __init__(self, name: str, args: WorkloadRoleArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:WorkloadRole", name, None, opts)
        workload = args.workload
        trust = service_account_trust(
            args.oidc_provider_arn, args.oidc_issuer_host, workload.namespace, workload.service_account_name
        )
        role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=trust,
            max_session_duration=3600,
            tags={**args.tags, "accelplane.io/workload": workload.name},
            opts=pulumi.ResourceOptions(parent=self),
        )
        statements = self._statements(args)
        if statements:
            aws.iam.RolePolicy(
                f"{name}-access",
                role=role.name,
                policy=policy_json(statements),
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.arn = role.arn
        self.register_outputs({"arn": role.arn})

    @staticmethod
    def _statements(args: WorkloadRoleArgs) -> list[dict[str, Any]]:
        statements: list[dict[str, Any]] = []
        kms_actions: set[str] = set()
        for index, grant in enumerate(args.workload.buckets):
            bucket_arn = args.bucket_arns[grant.role]
            objects = pulumi.Output.concat(bucket_arn, "/", grant.prefix, "*")
            actions: list[str] = []
            if grant.access in (BucketAccess.read, BucketAccess.read_write):
                actions += _READ
                kms_actions.add("kms:Decrypt")
            if grant.access in (BucketAccess.write, BucketAccess.read_write):
                actions += _WRITE
                # Multipart uploads with SSE-KMS need Decrypt as well as GenerateDataKey.
                kms_actions.update({"kms:GenerateDataKey", "kms:Decrypt"})
            if grant.access is BucketAccess.read_write:
                actions += _DELETE
            statements.append({"Sid": f"Objects{index}", "Effect": "Allow", "Action": actions, "Resource": objects})
            statements.append(
                {
                    "Sid": f"List{index}",
                    "Effect": "Allow",
                    "Action": "s3:ListBucket",
                    "Resource": bucket_arn,
                    "Condition": {"StringLike": {"s3:prefix": [f"{grant.prefix}*"]}},
                }
            )
        if kms_actions:
            statements.append(
                {
                    "Sid": "DataKeyThroughS3",
                    "Effect": "Allow",
                    "Action": sorted(kms_actions),
                    "Resource": args.data_key_arn,
                    "Condition": {"StringEquals": {"kms:ViaService": f"s3.{args.region}.amazonaws.com"}},
                }
            )
        secret_arns = [args.secret_arns[name] for name in args.workload.secrets]
        if secret_arns:
            statements.append(
                {
                    "Sid": "ReadDeclaredSecrets",
                    "Effect": "Allow",
                    "Action": ["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
                    "Resource": secret_arns,
                }
            )
            statements.append(
                {
                    "Sid": "SecretsKeyThroughSecretsManager",
                    "Effect": "Allow",
                    "Action": "kms:Decrypt",
                    "Resource": args.secrets_key_arn,
                    "Condition": {"StringEquals": {"kms:ViaService": f"secretsmanager.{args.region}.amazonaws.com"}},
                }
            )
        return statements
