"""`SecretStore`: Secrets Manager secrets encrypted with the platform's secrets key.

Values never appear in the stack file: when `pulumi config set --secret accelplane:secret-<name>`
holds one, a version is created from it (as a Pulumi secret, so it is encrypted in state);
otherwise the secret is created empty and an operator puts the value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.declaration import AwsSecret


@dataclass(frozen=True)
class SecretStoreArgs:
    secrets: Sequence[AwsSecret]
    kms_key_arn: pulumi.Input[str]
    values: Mapping[str, pulumi.Output[str]]
    tags: Mapping[str, str]
    protect: bool


class SecretStore(pulumi.ComponentResource):
    arns: dict[str, pulumi.Output[str]]

    def __init__(self, name: str, args: SecretStoreArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:SecretStore", name, None, opts)
        self.arns = {}
        for spec in args.secrets:
            secret = aws.secretsmanager.Secret(
                f"{name}-{spec.name}",
                name_prefix=f"{name}/{spec.name}-",
                description=spec.description,
                kms_key_id=args.kms_key_arn,
                recovery_window_in_days=spec.recovery_window_days,
                tags=dict(args.tags),
                opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
            )
            value = args.values.get(spec.name)
            if value is not None:
                aws.secretsmanager.SecretVersion(
                    f"{name}-{spec.name}-value",
                    secret_id=secret.id,
                    secret_string=value,
                    opts=pulumi.ResourceOptions(parent=self),
                )
            self.arns[spec.name] = secret.arn
        self.register_outputs({"arns": self.arns})
