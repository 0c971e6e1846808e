"""`TargetGroupBackend`: an EKS inference service behind the cloud layer's ALB.

A TargetGroupBinding registers the service's pods (IP targets) in the target group the AWS layer
declared; the AWS Load Balancer Controller (`load_balancer_controller.py`) acts on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict


@dataclass(frozen=True)
class TargetGroupBackend:
    target_group_arn: pulumi.Input[str]


def bind_target_group(
    name: str,
    backend: TargetGroupBackend,
    metadata: ObjectMetaArgsDict,
    service: str,
    port: int,
    parent: pulumi.Resource,
    depends_on: Sequence[pulumi.Resource],
) -> None:
    k8s.apiextensions.CustomResource(
        f"{name}-tgb",
        api_version="elbv2.k8s.aws/v1beta1",
        kind="TargetGroupBinding",
        metadata=metadata,
        spec={
            "serviceRef": {"name": service, "port": port},
            "targetGroupARN": backend.target_group_arn,
            "targetType": "ip",
        },
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
    )
