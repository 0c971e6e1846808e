"""`TargetGroupBackend`: an EKS inference service behind the cloud layer's ALB.

Each backend of an exposed service has its own target group (the ALB's weighted forward action splits
the service's requests between them); a TargetGroupBinding per backend registers that backend's pods
(IP targets) in its target group. The AWS Load Balancer Controller (`load_balancer_controller.py`)
acts on the bindings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict


@dataclass(frozen=True)
class TargetGroupBackend:
    target_group_arns: Mapping[tuple[str, str], pulumi.Input[str]]  # (service, backend) -> target group ARN


def bind_target_group(
    name: str,
    target_group_arn: pulumi.Input[str],
    metadata: ObjectMetaArgsDict,
    service: str,
    port: int,
    parent: pulumi.Resource,
    depends_on: Sequence[pulumi.Resource],
) -> None:
    """Register the pods behind the Kubernetes Service `service` in the target group."""
    k8s.apiextensions.CustomResource(
        f"{name}-tgb",
        api_version="elbv2.k8s.aws/v1beta1",
        kind="TargetGroupBinding",
        metadata=metadata,
        spec={
            "serviceRef": {"name": service, "port": port},
            "targetGroupARN": target_group_arn,
            "targetType": "ip",
        },
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(depends_on)),
    )
