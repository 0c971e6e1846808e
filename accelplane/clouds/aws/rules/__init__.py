"""AWS's policy rules (`rule_list`, by topic in the sub-packages) and how the neutral rules read AWS
resources: `CLOUD_RULES`, this cloud's entry point in the `accelplane.rules` group."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.cloud_rules import CloudRules, NodePoolShape
from accelplane.rules.rule import Rule
from accelplane.rules.view import Resource, as_int, as_list, as_str, get


def _instance_type(node_group: Resource) -> str:
    instances = [as_str(i) for i in as_list(node_group.get("instanceTypes"))]
    return instances[0] if instances else ""


def _minimum_nodes(node_group: Resource) -> int | None:
    return as_int(get(node_group.props, "scalingConfig", "minSize"))


def _rules() -> Iterable[Rule]:
    # Imported on first call: the rule modules import neutral helpers that read CLOUD_RULES.
    from accelplane.clouds.aws.rules.rule_list import RULES

    return RULES


CLOUD_RULES = CloudRules(
    cloud="aws",
    node_pools=(NodePoolShape(
        t.EKS_NODE_GROUP, ("labels",), _instance_type, _minimum_nodes,
        # A new launch template version, AMI release or Kubernetes version: EKS updates the managed node
        # group by a rolling replacement of every node (EKS User Guide, "Update a managed node group for
        # your cluster": new nodes in surge, old ones drained and terminated).
        recreating_inputs=("launchTemplate.version", "releaseVersion", "version"),
    ),),
    stateful_types=frozenset({*t.S3_BUCKETS, t.KMS_KEY, t.SECRET, t.EBS_VOLUME, "aws:efs/fileSystem:FileSystem",
                              "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:rds/instance:Instance",
                              "aws:rds/cluster:Cluster", "aws:dynamodb/table:Table"}),
    load_rules=_rules,
    force_new_table=Path(__file__).parents[1] / "force_new.json",
    review_inputs={
        "aws:ec2/launchTemplate:LaunchTemplate": (
            "instanceType", "imageId", "placement.groupName",
            "capacityReservationSpecification.capacityReservationTarget.capacityReservationId",
            "blockDeviceMappings.ebs.volumeSize", "metadataOptions.httpTokens",
            "metadataOptions.httpPutResponseHopLimit"),
        t.EKS_NODE_GROUP: ("instanceTypes", "amiType", "releaseVersion", "capacityType", "scalingConfig.minSize",
                           "scalingConfig.maxSize"),
        "aws:eks/cluster:Cluster": ("version",),
    },
)
