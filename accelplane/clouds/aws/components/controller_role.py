"""`ControllerRole`: an IAM role for one in-cluster controller's service account (IRSA)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import policy_json, service_account_trust


@dataclass(frozen=True)
class ControllerRoleArgs:
    namespace: str
    service_account: str
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer_host: pulumi.Output[str]
    statements: Sequence[Mapping[str, Any]]
    tags: Mapping[str, str]


class ControllerRole(pulumi.ComponentResource):
    arn: pulumi.Output[str]

    def __init__(self, name: str, args: ControllerRoleArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:ControllerRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=service_account_trust(
                args.oidc_provider_arn, args.oidc_issuer_host, args.namespace, args.service_account
            ),
            tags={**args.tags, "accelplane.io/controller": args.service_account},
            opts=child,
        )
        aws.iam.RolePolicy(f"{name}-access", role=role.name, policy=policy_json(list(args.statements)), opts=child)
        self.arn = role.arn
        self.register_outputs({"arn": role.arn})
