"""`EksFacts`: the Kubernetes layer's view of an EKS cluster (`cluster_facts.ClusterFacts` for AWS).

- Provider: the cluster's endpoint and CA, tokens from `aws eks get-token`.
- Pools: the vendor's extended resource and taint (`accelerator_vendors`), accelerators and EFA
  interfaces per instance from the EC2 catalog, selection by `accelplane.io/pool`.
- Load balancer sources: the ALB lives in the public subnets (or, in an existing VPC, the VPC).
- Workload identity: IRSA, the role ARN annotation on the service account.
- Checkpoints: `s3://`.
- Exposure: the AWS Load Balancer Controller (its own least-privilege role, through the program's
  AWS provider) and a TargetGroupBinding per backend of each exposed service, to that backend's
  target group.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.clouds.aws import catalog as aws_catalog
from accelplane.clouds.aws.components.node_pool import default_taints
from accelplane.clouds.aws.declaration import AwsPlatform, aws_platform
from accelplane.clouds.aws.k8s.kubeconfig import eks_kubeconfig
from accelplane.clouds.aws.k8s.load_balancer_controller import LoadBalancerController, LoadBalancerControllerArgs
from accelplane.clouds.aws.k8s.target_group_backend import TargetGroupBackend
from accelplane.clouds.aws.node_vendors import EFA_RESOURCE, node_facts
from accelplane.declaration import BucketRole, NodePool, Platform, Workload
from accelplane.k8s.cluster_facts import ClusterFacts, Exposure, PoolScheduling
from accelplane.k8s.provider import provider_for
from accelplane.k8s.scheduling import kubernetes_taints, pool_selector

ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"


@dataclass(frozen=True)
class EksFacts(ClusterFacts):
    platform: AwsPlatform
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    oidc_provider_arn: pulumi.Output[str]
    oidc_issuer_host: pulumi.Output[str]
    vpc_id: pulumi.Output[str]
    target_group_arns: Mapping[tuple[str, str], pulumi.Output[str]]  # (service, backend) -> ARN
    workload_role_arns: Mapping[str, pulumi.Output[str]]
    bucket_names: Mapping[BucketRole, pulumi.Output[str]]
    aws_provider: pulumi.ProviderResource  # the program's provider for the declared region

    @property
    def cloud(self) -> str:
        return "aws"

    @property
    def runs_device_exporters(self) -> bool:
        # The layer runs DCGM and neuron-monitor (their alerts apply).
        return True

    def provider(self, name: str) -> k8s.Provider:
        return provider_for(
            name, eks_kubeconfig(self.cluster_name, self.endpoint, self.certificate_authority, self.platform.region)
        )

    def providers(self, kubernetes: k8s.Provider) -> Mapping[str, pulumi.ProviderResource]:
        # The load balancer controller's IAM role is an AWS resource of this layer.
        return {"kubernetes": kubernetes, "aws": self.aws_provider}

    def scheduling(self, pool: NodePool) -> PoolScheduling | None:
        vendor = node_facts(pool.accelerator)
        if pool.accelerator is None or vendor is None:
            return None
        instance = aws_catalog.instance_facts(pool.instance_type)
        per_node = instance.accelerator_count if instance else 0
        return PoolScheduling(
            resource=vendor.resource,
            per_node=per_node,
            capacity=pool.scaling.max * per_node,
            selector=pool_selector(pool),
            taints=kubernetes_taints(default_taints(pool, vendor)),
            max_nodes=pool.scaling.max,
            fabric={EFA_RESOURCE: instance.max_efa_interfaces} if instance and pool.uses_efa() else {},
        )

    def load_balancer_sources(self) -> list[str]:
        network = self.platform.network
        if network.new_vpc is not None:
            return list(network.new_vpc.public_subnets)
        assert network.existing_vpc is not None
        return [network.existing_vpc.cidr]

    def service_account_annotations(self, workload: Workload) -> Mapping[str, pulumi.Input[str]]:
        return {ROLE_ARN_ANNOTATION: self.workload_role_arns[workload.name]}

    def checkpoint_uri(self, prefix: str) -> pulumi.Output[str]:
        return pulumi.Output.concat("s3://", self.bucket_names[BucketRole.checkpoints], "/", prefix)

    def exposure(self, platform: Platform, opts: pulumi.ResourceOptions) -> Exposure:
        platform = aws_platform(platform)
        layer = platform.kubernetes
        assert layer is not None
        addons = platform.software_profiles[layer.addons_profile]
        version = addons.aws_load_balancer_controller
        assert version is not None  # guaranteed by the Kubernetes checks
        controller = LoadBalancerController(
            f"{platform.name}-lbc",
            LoadBalancerControllerArgs(
                version=version,
                cluster_name=self.cluster_name,
                region=platform.region,
                vpc_id=self.vpc_id,
                target_group_arns=list(self.target_group_arns.values()),
                oidc_provider_arn=self.oidc_provider_arn,
                oidc_issuer_host=self.oidc_issuer_host,
                tags=platform.resource_tags,
            ),
            opts=opts,
        )
        backend = TargetGroupBackend(dict(self.target_group_arns)) if self.target_group_arns else None
        return Exposure(depends_on=[controller], backend=backend)
