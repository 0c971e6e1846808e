"""`NodeRole`: the IAM role of every managed node, with only the managed policies nodes need."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from accelplane.clouds.aws.components.policy_document import service_trust

# Kubelet registration, VPC CNI address management, and pulling images from ECR: what an EKS
# node needs (AWS EKS user guide, "Amazon EKS node IAM role"). Nothing for S3 or secrets:
# workloads get those through their own roles.
NODE_MANAGED_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
)


@dataclass(frozen=True)
class NodeRoleArgs:
    partition: pulumi.Input[str]
    tags: Mapping[str, str]


class NodeRole(pulumi.ComponentResource):
    arn: pulumi.Output[str]

    def __init__(self, name: str, args: NodeRoleArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:NodeRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{name}-role", assume_role_policy=service_trust("ec2.amazonaws.com"), tags=dict(args.tags), opts=child
        )
        attachments = [
            aws.iam.RolePolicyAttachment(
                f"{name}-{policy}",
                role=role.name,
                policy_arn=pulumi.Output.concat("arn:", args.partition, ":iam::aws:policy/", policy),
                opts=child,
            )
            for policy in NODE_MANAGED_POLICIES
        ]
        # Node groups must not start before their role can register nodes.
        self.arn = pulumi.Output.all(role.arn, *[a.id for a in attachments]).apply(lambda values: values[0])
        self.register_outputs({"arn": self.arn})
