"""`ServiceBackend`: how a cloud attaches an exposed inference service to what exposes it.

The service component (`inference_service.py`) builds the same Deployments, Services, HPAs and PDBs
on every cloud; what joins them to the endpoint differs: on EKS a TargetGroupBinding per backend
registers its pods in that backend's ALB target group (the ALB's weighted forward splits the
requests), on GKE each backend Service gets its health-check and Cloud Armor policies and the service
one HTTPRoute with a weighted backendRef per backend. Each cloud implements this interface in
`clouds/<cloud>/k8s/`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict


@dataclass(frozen=True)
class BackendRef:
    """One backend of a service as the endpoint sees it: its Kubernetes Service, port and share."""

    service_name: str  # the declared service
    backend_name: str  # the declared backend
    object_name: str  # the backend's Kubernetes Service
    port: int
    weight: int


@dataclass(frozen=True)
class Attachment:
    """Where the objects that attach a service or a backend go."""

    name: str  # Pulumi logical-name prefix
    metadata: ObjectMetaArgsDict  # their metadata (name, namespace, labels)
    parent: pulumi.Resource
    depends_on: Sequence[pulumi.Resource]


class ServiceBackend(ABC):
    @abstractmethod
    def attach_backend(self, at: Attachment, ref: BackendRef) -> None:
        """Join one backend's Service to the endpoint."""

    @abstractmethod
    def attach_service(self, at: Attachment, path_prefix: str, refs: Sequence[BackendRef]) -> None:
        """Route the service's path prefix to its backends, by weight (after every backend is attached)."""
