"""`SecretAccess`: resource policies letting only the named workload roles read each secret.

Separate from `SecretStore` because the roles need the secrets' ARNs first (their own policies)
and the secrets' policies then need the roles' ARNs: two resources, no cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import policy_json


@dataclass(frozen=True)
class SecretAccessArgs:
    secret_arns: Mapping[str, pulumi.Output[str]]
    readers: Mapping[str, Sequence[pulumi.Output[str]]]  # secret name -> reader role ARNs


class SecretAccess(pulumi.ComponentResource):
    def __init__(self, name: str, args: SecretAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:SecretAccess", name, None, opts)
        for secret, arn in args.secret_arns.items():
            readers = list(args.readers.get(secret, ()))
            statements = []
            if readers:
                statements.append(
                    {
                        "Sid": "NamedWorkloadsRead",
                        "Effect": "Allow",
                        "Principal": {"AWS": readers},
                        "Action": ["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
                        "Resource": "*",  # in a resource policy, "*" means this secret
                    }
                )
            # Nobody may read the value over plain HTTP, whatever their IAM policy says.
            statements.append(
                {
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "secretsmanager:*",
                    "Resource": "*",
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                }
            )
            aws.secretsmanager.SecretPolicy(
                f"{name}-{secret}",
                secret_arn=arn,
                policy=policy_json(statements),
                block_public_policy=True,
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.register_outputs({})
