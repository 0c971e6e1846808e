"""`SecretStore`: Secrets Manager secrets encrypted with the platform's secrets key.

Values never appear in the stack file: when `pulumi config set --secret accelplane:secret-<name>`
holds one, a version is created from it (as a Pulumi secret, so it is encrypted in state);
otherwise the secret is created empty and an operator puts the value.

A secret with `rotation_days` rotates: Secrets Manager calls the declared rotation function (a Lambda
function the team owns, which knows how to make a new value) every `rotation_days`. The function's
resource policy gets one statement letting `secretsmanager.amazonaws.com` invoke it for this secret
alone (`SourceArn`: Secrets Manager would otherwise be a confused deputy for any secret of any
account), made before rotation is turned on, since turning it on calls the function at once. The
function's own role needs `secretsmanager:DescribeSecret`, `GetSecretValue`, `PutSecretValue` and
`UpdateSecretVersionStage` on the secret and the secrets key's use through Secrets Manager (the key's
policy leaves that to IAM).
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
            if spec.rotation_days is not None and spec.rotation_function is not None:
                invoke = aws.lambda_.Permission(
                    f"{name}-{spec.name}-rotation-invoke",
                    action="lambda:InvokeFunction",
                    function=spec.rotation_function,
                    principal="secretsmanager.amazonaws.com",
                    source_arn=secret.arn,
                    opts=pulumi.ResourceOptions(parent=self),
                )
                aws.secretsmanager.SecretRotation(
                    f"{name}-{spec.name}-rotation",
                    secret_id=secret.id,
                    rotation_lambda_arn=spec.rotation_function,
                    rotation_rules={"automatically_after_days": spec.rotation_days},
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[invoke]),
                )
            self.arns[spec.name] = secret.arn
        self.register_outputs({"arns": self.arns})
