"""`EncryptionKey`: a customer-managed KMS key with rotation and an explicit, account-scoped policy."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import Statement, policy_json


@dataclass(frozen=True)
class EncryptionKeyArgs:
    description: str
    account_id: pulumi.Input[str]
    partition: pulumi.Input[str]
    tags: Mapping[str, str]
    protect: bool
    # Statements for an AWS service that encrypts with the key itself (CloudTrail's log files), beyond the
    # account's IAM delegation: a service principal has no IAM policy to be granted by.
    service_statements: Sequence[Statement] = ()


class EncryptionKey(pulumi.ComponentResource):
    arn: pulumi.Output[str]

    def __init__(self, name: str, args: EncryptionKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:EncryptionKey", name, None, opts)
        # The key policy delegates to IAM in this account only (never a `*` principal); which
        # roles may use the key is then decided by their IAM policies, with kms:ViaService.
        root = pulumi.Output.concat("arn:", args.partition, ":iam::", args.account_id, ":root")
        key = aws.kms.Key(
            f"{name}-key",
            description=args.description,
            enable_key_rotation=True,
            rotation_period_in_days=365,
            deletion_window_in_days=30,
            policy=policy_json(
                [
                    {
                        "Sid": "AccountAdministersKeyThroughIam",
                        "Effect": "Allow",
                        "Principal": {"AWS": root},
                        "Action": "kms:*",
                        "Resource": "*",
                    },
                    *args.service_statements,
                ]
            ),
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        aws.kms.Alias(
            f"{name}-alias", name=f"alias/{name}", target_key_id=key.key_id, opts=pulumi.ResourceOptions(parent=self)
        )
        self.arn = key.arn
        self.register_outputs({"arn": key.arn})
