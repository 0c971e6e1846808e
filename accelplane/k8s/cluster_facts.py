"""`ClusterFacts`: what the Kubernetes layer needs to know about the cloud under the cluster.

The layer (`layer.py`) builds the same namespaces, quotas, policies, priority classes, queues,
services, job templates and monitoring on every cloud; what differs is a short list, supplied by one
implementation per cloud (`clouds/<cloud>/k8s/cluster_facts.py`) behind this interface:

- the cluster provider (how kubectl-equivalent credentials are obtained: `aws eks get-token` or the
  `gke-gcloud-auth-plugin`),
- per accelerator pool (`PoolScheduling`): the extended resource, how many each node offers and the
  pool holds, the node selector, the taints its pods tolerate, and how many nodes form one slice,
- the sources allowed to reach inference pods through the default-deny policies,
- workload identity wiring (the service account's annotations),
- the checkpoint URI scheme,
- what exposes an inference service (`Exposure`: a controller or gateway the Deployments wait for,
  and the `ServiceBackend` that attaches each exposed service to it),
- whether the layer runs the vendors' device exporters (EKS) or the cloud does (GKE), and, through
  `support`, which chart versions the cloud's add-ons and device plugins need.

Facts are data: the layer, not the facts, decides what to build from them (docs/conventions.md 3, 9).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.core.v1 import TolerationArgsDict

from accelplane.cloud_support import CloudSupport, cloud_support
from accelplane.declaration import NodePool, Platform, Workload
from accelplane.k8s.service_backend import ServiceBackend


@dataclass(frozen=True)
class PoolScheduling:
    """How an accelerator pool looks to the scheduler and to quotas."""

    resource: str  # extended resource the device plugin advertises
    per_node: int  # of `resource` on each node (a TPU VM's chips)
    capacity: int  # of `resource` across the pool at its maximum size
    selector: Mapping[str, str]  # node selector that lands a pod on this pool (and no other)
    taints: Sequence[Mapping[str, str]]  # the nodes' taints, Kubernetes spelling: key, value, effect
    max_nodes: int  # nodes the pool holds at its maximum size (a training job's default)
    # TPU pools: jobs take whole slices of `vms_per_slice` nodes (1 on single-host slices), one
    # replicated job per slice. None: nodes are interchangeable (GPU, Neuron).
    vms_per_slice: int | None = None
    # Node label whose value differs per slice: JobSet places each replicated job on one value only.
    exclusive_topology: str | None = None
    whole_node: bool = False  # a pod takes all of a node's accelerators (a TPU VM's chips go together)
    # Extended resources of the network fabric a training pod takes per node, besides its accelerators
    # (AWS: its EFA interfaces); the cloud names them (CloudSupport.fabric_resources).
    fabric: Mapping[str, int] = field(default_factory=dict)

    @property
    def tolerations(self) -> list[TolerationArgsDict]:
        return [
            {"key": t["key"], "operator": "Equal", "value": t["value"], "effect": t["effect"]} for t in self.taints
        ]


@dataclass(frozen=True)
class Exposure:
    """What exposes inference services on this cloud: what their Deployments wait for, and how each
    exposed service is attached (None: the platform has no endpoint)."""

    depends_on: Sequence[pulumi.Resource] = field(default_factory=list)
    backend: ServiceBackend | None = None


class ClusterFacts(ABC):
    """One implementation per cloud; see the module docstring."""

    @property
    @abstractmethod
    def cloud(self) -> str: ...

    @property
    def support(self) -> CloudSupport:
        return cloud_support(self.cloud)

    @property
    @abstractmethod
    def runs_device_exporters(self) -> bool:
        """True where the layer runs the vendors' device exporters (their alerts then apply)."""

    @abstractmethod
    def provider(self, name: str) -> k8s.Provider:
        """The explicit Kubernetes provider for the cluster (never the user's kubeconfig)."""

    @abstractmethod
    def providers(self, kubernetes: k8s.Provider) -> Mapping[str, pulumi.ProviderResource]:
        """Providers every component of the layer gets (the cluster's, and the cloud's where the layer
        creates a cloud resource)."""

    @abstractmethod
    def scheduling(self, pool: NodePool) -> PoolScheduling | None:
        """None for pools without accelerators the layer schedules onto."""

    @abstractmethod
    def load_balancer_sources(self) -> list[str]:
        """CIDRs the load balancer reaches inference pods from (its proxies and health checks)."""

    @abstractmethod
    def service_account_annotations(self, workload: Workload) -> Mapping[str, pulumi.Input[str]]:
        """What binds a workload's Kubernetes service account to its cloud identity."""

    @abstractmethod
    def checkpoint_uri(self, prefix: str) -> pulumi.Output[str]:
        """URI of a prefix of the checkpoints bucket."""

    @abstractmethod
    def exposure(self, platform: Platform, opts: pulumi.ResourceOptions) -> Exposure:
        """Create what exposes inference services (a controller, a gateway) and say how services attach."""
