"""`LoadBalancerController`: the AWS Load Balancer Controller with its own least-privilege role.

It is used here only for TargetGroupBindings (the ALB is declared by the cloud layer), so its
role may describe what it must discover and register/deregister targets in the declared target
groups (one per backend of each exposed service), nothing else: no load balancer or security group
creation. The controllers for Ingress
and Service objects keep running (the chart has no switch to drop them), but without permission
to create anything they cannot build a second, undeclared load balancer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi

from accelplane.clouds.aws.components.controller_role import ControllerRole, ControllerRoleArgs
from accelplane.k8s.helm_chart import CHARTS
from accelplane.k8s.pinned_release import pinned_release

SERVICE_ACCOUNT = "aws-load-balancer-controller"

# Describe* calls support no resource-level scoping in IAM: `*` is the only valid resource there.
_DISCOVERY_ACTIONS = [
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcs",
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeLoadBalancers",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetHealth",
]


@dataclass(frozen=True)
class LoadBalancerControllerArgs:
    version: str
    cluster_name: pulumi.Input[str]
    region: str
    vpc_id: pulumi.Input[str]
    target_group_arns: Sequence[pulumi.Input[str]]
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer_host: pulumi.Output[str]
    tags: Mapping[str, str]


class LoadBalancerController(pulumi.ComponentResource):
    release: pulumi.Resource

    def __init__(
        self,
        name: str,
        args: LoadBalancerControllerArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("accelplane:k8s:LoadBalancerController", name, None, opts)
        statements: list[dict[str, object]] = [
            {"Sid": "Discover", "Effect": "Allow", "Action": _DISCOVERY_ACTIONS, "Resource": "*"},
        ]
        if args.target_group_arns:
            statements.append(
                {
                    "Sid": "RegisterPodsInDeclaredTargetGroup",
                    "Effect": "Allow",
                    "Action": ["elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets"],
                    "Resource": list(args.target_group_arns),
                }
            )
        # The role lives with the controller; the cloud layer's IAM objects stay workload-only.
        role = ControllerRole(
            f"{name}-irsa",
            ControllerRoleArgs(
                namespace=CHARTS["aws_load_balancer_controller"].namespace,
                service_account=SERVICE_ACCOUNT,
                oidc_provider_arn=args.oidc_provider_arn,
                oidc_issuer_host=args.oidc_issuer_host,
                statements=statements,
                tags=args.tags,
            ),
            opts=pulumi.ResourceOptions(parent=self, provider=None),
        )
        self.release = pinned_release(
            f"{name}-release",
            "aws_load_balancer_controller",
            args.version,
            {
                "clusterName": args.cluster_name,
                "region": args.region,
                "vpcId": args.vpc_id,
                "replicaCount": 2,
                "serviceAccount": {
                    "create": True,
                    "name": SERVICE_ACCOUNT,
                    "annotations": {"eks.amazonaws.com/role-arn": role.arn},
                },
                # No webhook that rewrites every Service into an NLB behind our back.
                "enableServiceMutatorWebhook": False,
            },
            pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})
