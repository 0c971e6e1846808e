"""`EksCluster`: the control plane, its role, logs, secrets envelope encryption and OIDC provider."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import policy_json, service_trust

# AWS managed policy the EKS control plane role needs (and nothing more).
CLUSTER_MANAGED_POLICIES = ("AmazonEKSClusterPolicy",)


@dataclass(frozen=True)
class EksClusterArgs:
    cluster_name: str
    kubernetes_version: str
    subnet_ids: Sequence[pulumi.Input[str]]
    api_allowed_cidrs: Sequence[str]
    secrets_key_arn: pulumi.Input[str]
    log_types: Sequence[str]
    log_retention_days: int
    partition: pulumi.Input[str]
    tags: Mapping[str, str]


class EksCluster(pulumi.ComponentResource):
    name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    security_group_id: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer_host: pulumi.Output[str]

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        role = aws.iam.Role(
            f"{name}-role", assume_role_policy=service_trust("eks.amazonaws.com"), tags=tags, opts=child
        )
        for policy in CLUSTER_MANAGED_POLICIES:
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}",
                role=role.name,
                policy_arn=pulumi.Output.concat("arn:", args.partition, ":iam::aws:policy/", policy),
                opts=child,
            )
        # Envelope encryption of Kubernetes secrets: the control plane uses the key, scoped to it.
        key_policy = aws.iam.RolePolicy(
            f"{name}-secrets-key",
            role=role.name,
            policy=policy_json(
                [
                    {
                        "Effect": "Allow",
                        "Action": ["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"],
                        "Resource": args.secrets_key_arn,
                    }
                ]
            ),
            opts=child,
        )
        # Created before the cluster so EKS does not create an unmanaged group with infinite retention.
        log_group = aws.cloudwatch.LogGroup(
            f"{name}-logs",
            name=f"/aws/eks/{args.cluster_name}/cluster",
            retention_in_days=args.log_retention_days,
            tags=tags,
            opts=child,
        )
        public = bool(args.api_allowed_cidrs)
        cluster = aws.eks.Cluster(
            f"{name}-cluster",
            name=args.cluster_name,
            version=args.kubernetes_version,
            role_arn=role.arn,
            vpc_config={
                "subnet_ids": list(args.subnet_ids),
                "endpoint_private_access": True,
                "endpoint_public_access": public,
                # AWS treats an empty list as 0.0.0.0/0: only send CIDRs when the endpoint is public.
                "public_access_cidrs": list(args.api_allowed_cidrs) if public else None,
            },
            encryption_config={"provider": {"key_arn": args.secrets_key_arn}, "resources": ["secrets"]},
            enabled_cluster_log_types=list(args.log_types),
            access_config={
                "authentication_mode": "API",
                "bootstrap_cluster_creator_admin_permissions": True,
            },
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[log_group, key_policy]),
        )
        issuer = cluster.identities.apply(lambda ids: (ids[0].oidcs[0].issuer or "") if ids and ids[0].oidcs else "")
        provider = aws.iam.OpenIdConnectProvider(
            f"{name}-oidc", url=issuer, client_id_lists=["sts.amazonaws.com"], tags=tags, opts=child
        )
        self.name = cluster.name
        self.endpoint = cluster.endpoint
        self.certificate_authority = cluster.certificate_authority.apply(lambda ca: ca.data or "")
        self.security_group_id = cluster.vpc_config.apply(lambda vpc: vpc.cluster_security_group_id or "")
        self.oidc_provider_arn = provider.arn
        self.oidc_issuer_host = issuer.apply(lambda url: url.removeprefix("https://"))
        self.register_outputs({"name": cluster.name, "endpoint": cluster.endpoint, "oidcProviderArn": provider.arn})
