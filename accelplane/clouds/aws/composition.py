"""The AWS platform: EKS with accelerator node groups, S3, an ALB endpoint, Secrets Manager and IAM.

The only place AWS components are wired together (security group ids into node groups, bucket ARNs
into workload roles), split by concern: keys, network and cluster, node groups, storage, the
endpoint, secrets and workload roles, then the Kubernetes layer on top. Every AWS resource and
lookup goes through one provider for the declared region, never the ambient one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws import catalog as aws_catalog
from accelplane.clouds.aws.components.audit_trail import AuditTrail, AuditTrailArgs
from accelplane.clouds.aws.components.bucket import SecureBucket, SecureBucketArgs
from accelplane.clouds.aws.components.cluster import EksCluster, EksClusterArgs
from accelplane.clouds.aws.components.encryption_key import EncryptionKey, EncryptionKeyArgs
from accelplane.clouds.aws.components.inference_endpoint import (
    InferenceEndpoint,
    InferenceEndpointArgs,
    Route,
    RouteBackend,
)
from accelplane.clouds.aws.components.network import NetworkArgs, PlatformNetwork
from accelplane.clouds.aws.components.node_pool import AcceleratorNodePool, NodePoolArgs
from accelplane.clouds.aws.components.node_role import NodeRole, NodeRoleArgs
from accelplane.clouds.aws.components.secret_access import SecretAccess, SecretAccessArgs
from accelplane.clouds.aws.components.secret_store import SecretStore, SecretStoreArgs
from accelplane.clouds.aws.components.security_groups import PlatformSecurityGroups, SecurityGroupsArgs
from accelplane.clouds.aws.components.workload_role import WorkloadRole, WorkloadRoleArgs
from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.k8s.cluster_facts import EksFacts
from accelplane.clouds.aws.node_vendors import node_facts
from accelplane.config.pulumi_source import secret_values
from accelplane.cost.budget import BUDGET_JUDGED_AT_TAG, BUDGET_WARN_AT_TAG
from accelplane.declaration import BucketRole, Environment, Purpose
from accelplane.declaration.resilience import effective_health_check
from accelplane.k8s.layer import build_kubernetes


@dataclass(frozen=True)
class _Context:
    """What every part of the composition shares."""

    platform: AwsPlatform
    tags: dict[str, str]
    protect: bool
    opts: pulumi.ResourceOptions
    account_id: pulumi.Output[str]
    partition: pulumi.Output[str]

    @property
    def name(self) -> str:
        return self.platform.name


@dataclass(frozen=True)
class _Keys:
    eks: EncryptionKey
    data: EncryptionKey
    secrets: EncryptionKey


def build_aws(platform: AwsPlatform) -> dict[str, Any]:
    """Declare every resource of an AWS platform; return the stack outputs."""
    # Moving an existing stack from the default provider to this one replaces nothing: the engine
    # asks the provider's DiffConfig, which sees the same region (pulumi/pulumi#18509).
    provider = aws.Provider(f"{platform.name}-aws", region=platform.region)
    invoke = pulumi.InvokeOutputOptions(provider=provider)
    ctx = _Context(
        platform=platform,
        tags=platform.resource_tags,
        protect=platform.environment is Environment.prod,
        opts=pulumi.ResourceOptions(providers=[provider]),
        account_id=aws.get_caller_identity_output(opts=invoke).account_id,
        partition=aws.get_partition_output(opts=invoke).partition,
    )
    keys = _keys(ctx)
    network, cluster, groups = _network_and_cluster(ctx, keys)
    node_groups = _node_groups(ctx, network, cluster, groups)
    buckets = _buckets(ctx, keys)
    _budget(ctx)
    _audit(ctx, buckets)
    outputs: dict[str, Any] = {
        "clusterName": cluster.name,
        "clusterEndpoint": cluster.endpoint,
        "oidcProviderArn": cluster.oidc_provider_arn,
        "nodeGroups": node_groups,
        "buckets": {role.value: bucket.bucket_name for role, bucket in buckets.items()},
        # The buckets' KMS key: a transfer writing into them (a migration's DataSync role) needs it.
        "dataKeyArn": keys.data.arn,
    }
    target_group_arns = _endpoint(ctx, network, groups, outputs)
    roles = _secrets_and_roles(ctx, keys, cluster, buckets)
    outputs["workloadRoles"] = {workload: role.arn for workload, role in roles.items()}
    build_kubernetes(
        platform,
        EksFacts(
            platform=platform,
            cluster_name=cluster.name,
            endpoint=cluster.endpoint,
            certificate_authority=cluster.certificate_authority,
            oidc_provider_arn=cluster.oidc_provider_arn,
            oidc_issuer_host=cluster.oidc_issuer_host,
            vpc_id=network.vpc_id,
            target_group_arns=target_group_arns,
            workload_role_arns={name: role.arn for name, role in roles.items()},
            bucket_names={role: bucket.bucket_name for role, bucket in buckets.items()},
            aws_provider=provider,
        ),
    )
    return outputs


def _keys(ctx: _Context) -> _Keys:
    def key(role: str, description: str) -> EncryptionKey:
        return EncryptionKey(
            f"{ctx.name}-{role}",
            EncryptionKeyArgs(description=description, account_id=ctx.account_id, partition=ctx.partition,
                              tags=ctx.tags, protect=ctx.protect),
            ctx.opts,
        )

    return _Keys(
        eks=key("eks", "Envelope encryption of Kubernetes secrets"),
        data=key("data", "S3 data: datasets, checkpoints, logs, model artifacts"),
        secrets=key("secrets", "Secrets Manager secrets"),
    )


def _network_and_cluster(ctx: _Context, keys: _Keys) -> tuple[PlatformNetwork, EksCluster, PlatformSecurityGroups]:
    platform = ctx.platform
    network = PlatformNetwork(
        f"{ctx.name}-network",
        NetworkArgs(new_vpc=platform.network.new_vpc, existing_vpc=platform.network.existing_vpc,
                    cluster_name=ctx.name, tags=ctx.tags),
        ctx.opts,
    )
    cluster = EksCluster(
        f"{ctx.name}-eks",
        EksClusterArgs(
            cluster_name=ctx.name,
            kubernetes_version=platform.kubernetes_version,
            subnet_ids=network.private_subnet_ids,
            api_allowed_cidrs=platform.network.api_allowed_cidrs,
            secrets_key_arn=keys.eks.arn,
            log_types=platform.cluster_log_types,
            log_retention_days=platform.log_retention_days,
            partition=ctx.partition,
            tags=ctx.tags,
        ),
        ctx.opts,
    )
    endpoint = platform.inference_endpoint
    groups = PlatformSecurityGroups(
        f"{ctx.name}-sg",
        SecurityGroupsArgs(
            vpc_id=network.vpc_id,
            load_balancer_cidrs=endpoint.allowed_cidrs if endpoint else [],
            listener_port=endpoint.listener_port if endpoint else 443,
            http_redirect=endpoint.http_redirect if endpoint else False,
            target_port=endpoint.target_port if endpoint else 8000,
            training=any(pool.purpose is Purpose.training for pool in platform.node_pools),
            tags=ctx.tags,
        ),
        ctx.opts,
    )
    return network, cluster, groups


def _node_groups(
    ctx: _Context, network: PlatformNetwork, cluster: EksCluster, groups: PlatformSecurityGroups
) -> dict[str, pulumi.Output[str]]:
    platform = ctx.platform
    node_role = NodeRole(f"{ctx.name}-node", NodeRoleArgs(partition=ctx.partition, tags=ctx.tags), ctx.opts)
    node_groups: dict[str, pulumi.Output[str]] = {}
    for pool in platform.node_pools:
        vendor = node_facts(pool.accelerator)
        instance = aws_catalog.instance_facts(pool.instance_type)
        assert vendor is not None and instance is not None  # guaranteed by config checks
        pool_groups: list[pulumi.Input[str]] = [cluster.security_group_id]
        if pool.purpose is Purpose.training and groups.training_id is not None:
            pool_groups.append(groups.training_id)
        if pool.purpose is Purpose.inference:
            pool_groups.append(groups.inference_id)
        node_pool = AcceleratorNodePool(
            f"{ctx.name}-{pool.name}",
            NodePoolArgs(
                pool=pool,
                profile=platform.pool_profile(pool),
                vendor=vendor,
                instance=instance,
                architecture=aws_catalog.architecture(pool.instance_type),
                cluster_name=cluster.name,
                kubernetes_version=platform.kubernetes_version,
                node_role_arn=node_role.arn,
                subnet_ids=network.private_subnet_ids,
                security_group_ids=pool_groups,
                tags=ctx.tags,
                subnet_zones=tuple(platform.network.new_vpc.availability_zones) if platform.network.new_vpc else (),
            ),
            ctx.opts,
        )
        node_groups[pool.name] = node_pool.node_group_name
    return node_groups


def _budget(ctx: _Context) -> None:
    """AWS Budgets' monthly cost budget over the platform's cost-allocation tag: it alerts on
    forecast spend at `warn_at` and on actual spend at 100 %. The tag records which pool size
    `check` judges the budget at (AP-COST-001 reads it from the plan)."""
    budget = ctx.platform.budget
    if budget is None:
        return
    notifications: list[aws.budgets.BudgetNotificationArgsDict] = []
    if budget.notify:
        notifications = [
            {"comparison_operator": "GREATER_THAN", "threshold": round(budget.warn_at * 100, 2),
             "threshold_type": "PERCENTAGE", "notification_type": "FORECASTED",
             "subscriber_email_addresses": list(budget.notify)},
            {"comparison_operator": "GREATER_THAN", "threshold": 100, "threshold_type": "PERCENTAGE",
             "notification_type": "ACTUAL", "subscriber_email_addresses": list(budget.notify)},
        ]
    aws.budgets.Budget(
        f"{ctx.name}-budget",
        name=f"{ctx.name}-monthly",
        budget_type="COST",
        limit_amount=f"{budget.monthly_usd:.2f}",
        limit_unit="USD",
        time_unit="MONTHLY",
        # Cost-allocation tags are filtered as "user:<key>$<value>" (activate the tag in Billing).
        cost_filters=[{"name": "TagKeyValue", "values": [f"user:accelplane:platform${ctx.name}"]}],
        notifications=notifications,
        tags={**ctx.tags, BUDGET_JUDGED_AT_TAG: budget.judged_at.value,
              BUDGET_WARN_AT_TAG: f"{budget.warn_at:g}"},
        opts=ctx.opts,
    )


def _buckets(ctx: _Context, keys: _Keys) -> dict[BucketRole, SecureBucket]:
    return {
        bucket.role: SecureBucket(
            f"{ctx.name}-{bucket.role.value.replace('_', '-')}",
            SecureBucketArgs(bucket=bucket, kms_key_arn=keys.data.arn, tags=ctx.tags, protect=ctx.protect),
            ctx.opts,
        )
        for bucket in ctx.platform.buckets
    }


def _audit(ctx: _Context, buckets: dict[BucketRole, SecureBucket]) -> None:
    """The stack's CloudTrail trail, recording the objects of the buckets that hold the model and its
    checkpoints (where an unseen change matters most)."""
    audit = ctx.platform.audit
    if audit is None:
        return
    recorded = [buckets[role].arn for role in (BucketRole.model_artifacts, BucketRole.checkpoints) if role in buckets]
    AuditTrail(
        f"{ctx.name}-audit",
        AuditTrailArgs(trail_name=f"{ctx.name}-audit", account_id=ctx.account_id, partition=ctx.partition,
                       region=ctx.platform.region, retention_days=audit.retention_days, readers=audit.readers,
                       data_bucket_arns=recorded, tags=ctx.tags, protect=ctx.protect),
        ctx.opts,
    )


def _routes(platform: AwsPlatform) -> list[Route]:
    """The exposed inference services, each with its backends' weights (none without a Kubernetes layer)."""
    services = platform.kubernetes.inference_services if platform.kubernetes else []
    return [
        Route(
            service=service.name,
            path_prefix=service.path_prefix,
            backends=[RouteBackend(name=b.name, weight=b.weight) for b in service.serving_backends],
            health_check=effective_health_check(platform.inference_endpoint.health_check, service.health_check)
            if platform.inference_endpoint else None,
            rate_limit=service.rate_limit,
            max_request_body_bytes=service.max_request_body_bytes,
        )
        for service in services
        if service.expose
    ]


def _endpoint(
    ctx: _Context, network: PlatformNetwork, groups: PlatformSecurityGroups, outputs: dict[str, Any]
) -> dict[tuple[str, str], pulumi.Output[str]]:
    """The ALB; returns its target groups' ARNs by (service, backend)."""
    spec = ctx.platform.inference_endpoint
    if spec is None or groups.load_balancer_id is None:
        return {}
    endpoint = InferenceEndpoint(
        f"{ctx.name}-inference",
        InferenceEndpointArgs(spec=spec, vpc_id=network.vpc_id, public_subnet_ids=network.public_subnet_ids,
                              security_group_id=groups.load_balancer_id, tags=ctx.tags, routes=_routes(ctx.platform)),
        ctx.opts,
    )
    outputs["inferenceEndpoint"] = endpoint.dns_name
    outputs["inferenceEndpointZoneId"] = endpoint.zone_id  # a migration's Route 53 alias names it
    outputs["inferenceTargetGroupArns"] = {
        f"{service}/{backend}": arn for (service, backend), arn in endpoint.target_group_arns.items()
    }
    return endpoint.target_group_arns


def _secrets_and_roles(
    ctx: _Context, keys: _Keys, cluster: EksCluster, buckets: dict[BucketRole, SecureBucket]
) -> dict[str, WorkloadRole]:
    platform = ctx.platform
    store = SecretStore(
        f"{ctx.name}-secrets",
        SecretStoreArgs(secrets=platform.secrets, kms_key_arn=keys.secrets.arn, values=secret_values(platform),
                        tags=ctx.tags, protect=ctx.protect),
        ctx.opts,
    )
    roles = {
        workload.name: WorkloadRole(
            f"{ctx.name}-{workload.name}",
            WorkloadRoleArgs(
                workload=workload,
                oidc_provider_arn=cluster.oidc_provider_arn,
                oidc_issuer_host=cluster.oidc_issuer_host,
                bucket_arns={role: bucket.arn for role, bucket in buckets.items()},
                data_key_arn=keys.data.arn,
                secret_arns=store.arns,
                secrets_key_arn=keys.secrets.arn,
                region=platform.region,
                tags=ctx.tags,
            ),
            ctx.opts,
        )
        for workload in platform.workloads
    }
    if platform.secrets:
        SecretAccess(
            f"{ctx.name}-secret-access",
            SecretAccessArgs(
                secret_arns=store.arns,
                readers={
                    secret.name: [roles[w.name].arn for w in platform.secret_readers(secret.name)]
                    for secret in platform.secrets
                },
            ),
            ctx.opts,
        )
    return roles
