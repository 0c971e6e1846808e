"""`AcceleratorNodePool`: one EKS managed node group with its launch template (and placement group).

The launch template enforces IMDSv2 with hop limit 1 (pods cannot borrow the node's role), an
encrypted gp3 root volume, no public IP, and EFA interfaces on every network card for EFA pools.
Labels carry the accelerator, pool, profile and each pinned version, so schedulers, Kueue flavors
and audits read the versions from the node itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
from pulumi_aws.ec2 import (
    LaunchTemplateBlockDeviceMappingArgsDict,
    LaunchTemplateMetadataOptionsArgsDict,
    LaunchTemplateNetworkInterfaceArgsDict,
    LaunchTemplatePlacementArgsDict,
)
from pulumi_aws.eks import NodeGroupTaintArgsDict

from accelplane.clouds.aws.capacity_block import CapacityBlock
from accelplane.clouds.aws.catalog import InstanceFacts
from accelplane.clouds.aws.declaration import AwsNodePool, AwsSoftwareProfile
from accelplane.clouds.aws.node_vendors import VendorNodeFacts
from accelplane.declaration import CapacityType, NodePool, TaintEffect
from accelplane.node_labels import LABEL_PREFIX, pool_labels

_CAPACITY = {
    CapacityType.on_demand: "ON_DEMAND",
    CapacityType.spot: "SPOT",
    # A targeted reservation is still on-demand capacity; the launch template names it.
    CapacityType.capacity_reservation: "ON_DEMAND",
}
# IMDSv2 only, one hop: pods cannot borrow the node's role.
_METADATA: LaunchTemplateMetadataOptionsArgsDict = {
    "http_endpoint": "enabled",
    "http_tokens": "required",
    "http_put_response_hop_limit": 1,
    "instance_metadata_tags": "disabled",
}
# A Capacity Block's nodes: EKS's capacity type, and the launch template's market type.
BLOCK_CAPACITY_TYPE = "CAPACITY_BLOCK"
BLOCK_MARKET_TYPE = "capacity-block"


@dataclass(frozen=True)
class NodePoolArgs:
    pool: AwsNodePool
    profile: AwsSoftwareProfile | None
    vendor: VendorNodeFacts
    instance: InstanceFacts
    architecture: str
    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    node_role_arn: pulumi.Input[str]
    subnet_ids: Sequence[pulumi.Input[str]]
    security_group_ids: Sequence[pulumi.Input[str]]
    tags: Mapping[str, str]
    # The private subnets' zones, in the same order, where the declaration knows them (a new VPC).
    subnet_zones: Sequence[str] = ()


def default_taints(pool: NodePool, vendor: VendorNodeFacts) -> list[NodeGroupTaintArgsDict]:
    if pool.taints is not None:
        return [{"key": t.key, "value": t.value, "effect": t.effect.value} for t in pool.taints]
    if not vendor.resource:
        return []
    return [{"key": vendor.taint_key, "value": "true", "effect": TaintEffect.NO_SCHEDULE.value}]


class AcceleratorNodePool(pulumi.ComponentResource):
    node_group_name: pulumi.Output[str]

    def __init__(self, name: str, args: NodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:AcceleratorNodePool", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        pool = args.pool
        tags = {**args.tags, f"{LABEL_PREFIX}/pool": pool.name}
        subnet_ids = list(args.subnet_ids)

        placement: LaunchTemplatePlacementArgsDict | None = None
        if pool.placement_group:
            group = aws.ec2.PlacementGroup(f"{name}-placement", strategy="cluster", tags=tags, opts=child)
            placement = {"group_name": group.name}
            # A cluster placement group lives in one zone: keep the pool in the first private subnet.
            subnet_ids = subnet_ids[:1]

        block = pool.capacity.block
        reservation_id: pulumi.Input[str] | None = pool.capacity.reservation_id
        if block is not None:
            reservation_id = self._buy(name, block, tags)
            subnet_ids = block_subnets(block.zone, block.subnet_id, subnet_ids, args.subnet_zones)

        launch_template = aws.ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"accelplane node pool {pool.name}",
            update_default_version=True,
            metadata_options=_METADATA,
            block_device_mappings=[_root_volume(pool.disk_gib)],
            network_interfaces=self._interfaces(pool, args),
            placement=placement,
            capacity_reservation_specification=(
                {"capacity_reservation_target": {"capacity_reservation_id": reservation_id}}
                if reservation_id is not None
                else None
            ),
            # EKS takes a block's instance type from the launch template only.
            instance_type=pool.instance_type if block is not None else None,
            instance_market_options={"market_type": BLOCK_MARKET_TYPE} if block is not None else None,
            tag_specifications=[
                {"resource_type": "instance", "tags": tags},
                {"resource_type": "volume", "tags": tags},
            ],
            tags=tags,
            opts=child,
        )
        node_group = aws.eks.NodeGroup(
            f"{name}-ng",
            cluster_name=args.cluster_name,
            node_group_name=pool.name,
            node_role_arn=args.node_role_arn,
            subnet_ids=subnet_ids,
            instance_types=None if block is not None else [pool.instance_type],
            ami_type=args.vendor.ami_types[args.architecture],
            release_version=args.profile.ami_release_version if args.profile else None,
            version=args.kubernetes_version,
            capacity_type=BLOCK_CAPACITY_TYPE if block is not None else _CAPACITY[pool.capacity.type],
            scaling_config={
                "min_size": pool.scaling.min,
                "desired_size": pool.scaling.desired,
                "max_size": pool.scaling.max,
            },
            update_config={"max_unavailable": 1},
            labels=pool_labels(pool, args.profile, pool.software_profile),
            taints=default_taints(pool, args.vendor),
            launch_template={"id": launch_template.id, "version": launch_template.latest_version.apply(str)},
            tags=tags,
            # The autoscaler owns the live size; a preview must not fight it over desired_size.
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["scalingConfig.desiredSize"]),
        )
        self.node_group_name = node_group.node_group_name
        self.register_outputs({"nodeGroupName": node_group.node_group_name})

    def _buy(self, name: str, block: CapacityBlock, tags: Mapping[str, str]) -> pulumi.Output[str]:
        """The Capacity Block's purchase, its terms in its tags; the reservation id the nodes target."""
        purchase = aws.ec2.CapacityBlockReservation(
            f"{name}-block",
            capacity_block_offering_id=block.offering_id,
            instance_platform="Linux/UNIX",
            tags={**tags, **block.tags()},
            # Bought once: a later offering id (an edit, a new lookup) must never buy a second block, and
            # AWS neither cancels nor refunds one, so deleting it would only make Pulumi forget it.
            opts=pulumi.ResourceOptions(parent=self, protect=True,
                                        ignore_changes=["capacityBlockOfferingId", "instancePlatform"]),
        )
        return purchase.id

    @staticmethod
    def _interfaces(pool: AwsNodePool, args: NodePoolArgs) -> list[LaunchTemplateNetworkInterfaceArgsDict]:
        groups = list(args.security_group_ids)
        if not pool.efa:
            return [
                {
                    "device_index": 0,
                    "associate_public_ip_address": "false",
                    "delete_on_termination": "true",
                    "security_groups": groups,
                }
            ]
        # One EFA interface per network card (p5: 32, trn1: 8); the primary carries IP traffic too.
        return [
            {
                "device_index": 0 if card == 0 else 1,
                "network_card_index": card,
                "interface_type": "efa",
                "associate_public_ip_address": "false",
                "delete_on_termination": "true",
                "security_groups": groups,
            }
            for card in range(max(1, args.instance.max_efa_interfaces))
        ]


def _root_volume(disk_gib: int) -> LaunchTemplateBlockDeviceMappingArgsDict:
    return {
        "device_name": "/dev/xvda",
        "ebs": {"volume_size": disk_gib, "volume_type": "gp3", "encrypted": "true", "delete_on_termination": "true"},
    }


def block_subnets(
    zone: str, subnet_id: str | None, subnet_ids: Sequence[pulumi.Input[str]], zones: Sequence[str]
) -> list[pulumi.Input[str]]:
    """The private subnet in the block's zone: the declared one (an existing VPC), else the new VPC's
    subnet there (the declaration checks guarantee one)."""
    if subnet_id is not None:
        return [subnet_id]
    return [subnet_ids[list(zones).index(zone)]]
