"""`TargetGroupBackend`: an EKS inference service behind the cloud layer's ALB.

Each backend of an exposed service has its own target group (the ALB's weighted forward action splits
the service's requests between them); a TargetGroupBinding per backend registers that backend's pods
(IP targets) in its target group. The AWS Load Balancer Controller (`load_balancer_controller.py`)
acts on the bindings. The weights are the ALB's, set by the cloud layer: no route object here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.k8s.service_backend import Attachment, BackendRef, ServiceBackend


@dataclass(frozen=True)
class TargetGroupBackend(ServiceBackend):
    target_group_arns: Mapping[tuple[str, str], pulumi.Input[str]]  # (service, backend) -> target group ARN

    def attach_backend(self, at: Attachment, ref: BackendRef) -> None:
        """Register the pods behind the backend's Kubernetes Service in its target group."""
        k8s.apiextensions.CustomResource(
            f"{at.name}-tgb",
            api_version="elbv2.k8s.aws/v1beta1",
            kind="TargetGroupBinding",
            metadata=at.metadata,
            spec={
                "serviceRef": {"name": ref.object_name, "port": ref.port},
                "targetGroupARN": self.target_group_arns[(ref.service_name, ref.backend_name)],
                "targetType": "ip",
            },
            opts=pulumi.ResourceOptions(parent=at.parent, depends_on=list(at.depends_on)),
        )

    def attach_service(self, at: Attachment, path_prefix: str, refs: Sequence[BackendRef]) -> None:
        """Nothing in the cluster: the ALB's listener (rule) forwards the prefix to the target groups."""
