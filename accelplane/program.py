"""The Pulumi program: compose the components from one validated declaration.

`build()` is the only place where components are wired together (SG ids into node pools, bucket
ARNs into workload roles). It runs unchanged under the real engine (`pulumi up`) and under the
offline engine (`accelplane preview`), and creates nothing at import time.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws

from accelplane.accelerator_vendors import node_facts
from accelplane.aws.bucket import SecureBucket, SecureBucketArgs
from accelplane.aws.cluster import EksCluster, EksClusterArgs
from accelplane.aws.encryption_key import EncryptionKey, EncryptionKeyArgs
from accelplane.aws.inference_endpoint import InferenceEndpoint, InferenceEndpointArgs
from accelplane.aws.network import NetworkArgs, PlatformNetwork
from accelplane.aws.node_pool import AcceleratorNodePool, NodePoolArgs
from accelplane.aws.node_role import NodeRole, NodeRoleArgs
from accelplane.aws.secret_access import SecretAccess, SecretAccessArgs
from accelplane.aws.secret_store import SecretStore, SecretStoreArgs
from accelplane.aws.security_groups import PlatformSecurityGroups, SecurityGroupsArgs
from accelplane.aws.workload_role import WorkloadRole, WorkloadRoleArgs
from accelplane.config import aws_catalog
from accelplane.config.model import Environment, Platform, Purpose
from accelplane.k8s.layer import CloudOutputs, build_kubernetes

SECRET_CONFIG_PREFIX = "secret-"


def build(platform: Platform) -> dict[str, Any]:
    """Declare every resource of the platform; return the stack outputs."""
    name = platform.name
    tags = platform.resource_tags
    protect = platform.environment is Environment.prod
    # Every AWS resource and lookup goes through a provider for the declared region, never the
    # ambient one (AWS_REGION, a profile's region, `aws:region`). Moving an existing stack from the
    # default provider to this one replaces nothing: the engine asks the provider's DiffConfig,
    # which sees the same region (pulumi/pulumi#18509).
    aws_provider = aws.Provider(f"{name}-aws", region=platform.region)
    opts = pulumi.ResourceOptions(providers=[aws_provider])
    invoke = pulumi.InvokeOutputOptions(provider=aws_provider)
    identity = aws.get_caller_identity_output(opts=invoke)
    partition = aws.get_partition_output(opts=invoke).partition

    def key(role: str, description: str) -> EncryptionKey:
        return EncryptionKey(
            f"{name}-{role}",
            EncryptionKeyArgs(
                description=description, account_id=identity.account_id, partition=partition, tags=tags, protect=protect
            ),
            opts,
        )

    eks_key = key("eks", "Envelope encryption of Kubernetes secrets")
    data_key = key("data", "S3 data: datasets, checkpoints, logs, model artifacts")
    secrets_key = key("secrets", "Secrets Manager secrets")

    network = PlatformNetwork(
        f"{name}-network",
        NetworkArgs(
            new_vpc=platform.network.new_vpc, existing_vpc=platform.network.existing_vpc, cluster_name=name, tags=tags
        ),
        opts,
    )
    cluster = EksCluster(
        f"{name}-eks",
        EksClusterArgs(
            cluster_name=name,
            kubernetes_version=platform.kubernetes_version,
            subnet_ids=network.private_subnet_ids,
            api_allowed_cidrs=platform.network.api_allowed_cidrs,
            secrets_key_arn=eks_key.arn,
            log_types=platform.cluster_log_types,
            log_retention_days=platform.log_retention_days,
            partition=partition,
            tags=tags,
        ),
        opts,
    )
    endpoint_spec = platform.inference_endpoint
    groups = PlatformSecurityGroups(
        f"{name}-sg",
        SecurityGroupsArgs(
            vpc_id=network.vpc_id,
            load_balancer_cidrs=endpoint_spec.allowed_cidrs if endpoint_spec else [],
            listener_port=endpoint_spec.listener_port if endpoint_spec else 443,
            http_redirect=endpoint_spec.http_redirect if endpoint_spec else False,
            target_port=endpoint_spec.target_port if endpoint_spec else 8000,
            training=any(pool.purpose is Purpose.training for pool in platform.node_pools),
            tags=tags,
        ),
        opts,
    )
    node_role = NodeRole(f"{name}-node", NodeRoleArgs(partition=partition, tags=tags), opts)
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
            f"{name}-{pool.name}",
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
                tags=tags,
            ),
            opts,
        )
        node_groups[pool.name] = node_pool.node_group_name

    buckets = {
        bucket.role: SecureBucket(
            f"{name}-{bucket.role.value.replace('_', '-')}",
            SecureBucketArgs(bucket=bucket, kms_key_arn=data_key.arn, tags=tags, protect=protect),
            opts,
        )
        for bucket in platform.buckets
    }

    outputs: dict[str, Any] = {
        "clusterName": cluster.name,
        "clusterEndpoint": cluster.endpoint,
        "oidcProviderArn": cluster.oidc_provider_arn,
        "nodeGroups": node_groups,
        "buckets": {role.value: bucket.bucket_name for role, bucket in buckets.items()},
    }
    target_group_arn: pulumi.Output[str] | None = None
    if endpoint_spec is not None and groups.load_balancer_id is not None:
        endpoint = InferenceEndpoint(
            f"{name}-inference",
            InferenceEndpointArgs(
                spec=endpoint_spec,
                vpc_id=network.vpc_id,
                public_subnet_ids=network.public_subnet_ids,
                security_group_id=groups.load_balancer_id,
                tags=tags,
            ),
            opts,
        )
        outputs["inferenceEndpoint"] = endpoint.dns_name
        outputs["inferenceTargetGroupArn"] = endpoint.target_group_arn
        target_group_arn = endpoint.target_group_arn

    config = pulumi.Config("accelplane")
    values = {
        secret.name: value
        for secret in platform.secrets
        if (value := config.get_secret(f"{SECRET_CONFIG_PREFIX}{secret.name}")) is not None
    }
    store = SecretStore(
        f"{name}-secrets",
        SecretStoreArgs(
            secrets=platform.secrets, kms_key_arn=secrets_key.arn, values=values, tags=tags, protect=protect
        ),
        opts,
    )
    roles = {
        workload.name: WorkloadRole(
            f"{name}-{workload.name}",
            WorkloadRoleArgs(
                workload=workload,
                oidc_provider_arn=cluster.oidc_provider_arn,
                oidc_issuer_host=cluster.oidc_issuer_host,
                bucket_arns={role: bucket.arn for role, bucket in buckets.items()},
                data_key_arn=data_key.arn,
                secret_arns=store.arns,
                secrets_key_arn=secrets_key.arn,
                region=platform.region,
                tags=tags,
            ),
            opts,
        )
        for workload in platform.workloads
    }
    if platform.secrets:
        SecretAccess(
            f"{name}-secret-access",
            SecretAccessArgs(
                secret_arns=store.arns,
                readers={
                    secret.name: [roles[w.name].arn for w in platform.secret_readers(secret.name)]
                    for secret in platform.secrets
                },
            ),
            opts,
        )
    outputs["workloadRoles"] = {workload: role.arn for workload, role in roles.items()}
    build_kubernetes(
        platform,
        CloudOutputs(
            cluster_name=cluster.name,
            endpoint=cluster.endpoint,
            certificate_authority=cluster.certificate_authority,
            oidc_provider_arn=cluster.oidc_provider_arn,
            oidc_issuer_host=cluster.oidc_issuer_host,
            vpc_id=network.vpc_id,
            target_group_arn=target_group_arn,
            workload_role_arns={name: role.arn for name, role in roles.items()},
            bucket_names={role: bucket.bucket_name for role, bucket in buckets.items()},
        ),
        aws_provider,
    )
    return outputs
