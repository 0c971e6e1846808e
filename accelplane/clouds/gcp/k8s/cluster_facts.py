"""`GkeFacts`: the Kubernetes layer's view of a GKE cluster (`cluster_facts.ClusterFacts` for Google Cloud).

- Provider: the cluster's endpoint and CA, tokens from `gke-gcloud-auth-plugin`.
- Pools: GKE's own device plugins advertise `google.com/tpu` (all of a TPU VM's chips, from the
  slice shape table) and `nvidia.com/gpu` (per machine type); GKE taints those nodes
  `google.com/tpu=present:NoSchedule` and `nvidia.com/gpu=present:NoSchedule` (`accelerator_vendors`).
  Pods select the pool (`accelplane.io/pool`) and the hardware GKE labels: a TPU slice's
  `cloud.google.com/gke-tpu-accelerator` and `cloud.google.com/gke-tpu-topology`
  (https://cloud.google.com/kubernetes-engine/docs/how-to/tpus), a GPU's
  `cloud.google.com/gke-accelerator`. A multi-host slice is `vms` nodes that work as one; each slice
  is its own GKE node pool (`composition/gcp.py`), so `cloud.google.com/gke-nodepool` tells slices apart.
- Load balancer sources: Google Front Ends and health checkers, 35.191.0.0/16 and 130.211.0.0/22
  (the global external Application Load Balancer needs no proxy-only subnet).
- Workload identity: the IAM bindings name the Kubernetes service account as a Workload Identity
  principal (`gcp/workload_access.py`): no annotation, no Google service account to impersonate.
- Checkpoints: `gs://`.
- Exposure: the Gateway (`inference_gateway.py`) and, per exposed service, its route and policies;
  with ID tokens declared, Identity-Aware Proxy on each backend and its OAuth client's secret.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp.components.network import GOOGLE_LOAD_BALANCER_RANGES
from accelplane.clouds.gcp.declaration import GcpInferenceEndpoint, GcpPlatform, gcp_platform, gcp_pool
from accelplane.clouds.gcp.k8s.gateway_backend import GatewayBackend, ServiceEdge
from accelplane.clouds.gcp.k8s.inference_gateway import InferenceGateway, InferenceGatewayArgs
from accelplane.clouds.gcp.k8s.kubeconfig import gke_kubeconfig
from accelplane.clouds.gcp.node_vendors import gke_node_facts
from accelplane.declaration import BucketRole, InferenceService, NodePool, Platform, Workload
from accelplane.declaration.resilience import (
    effective_backend_timeout,
    effective_health_check,
    effective_request_timeout,
)
from accelplane.k8s.cluster_facts import ClusterFacts, Exposure, PoolScheduling
from accelplane.k8s.provider import provider_for
from accelplane.k8s.scheduling import declared_taints, pool_selector

NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"
# The Secret holding the Identity-Aware Proxy OAuth client's secret, in each exposed service's namespace.
IAP_SECRET_NAME = "accelplane-iap-oauth-client"


@dataclass(frozen=True)
class GkeEndpoint:
    """The Google Cloud side of the inference endpoint, by name (`gcp/inference_endpoint.py`)."""

    address_name: pulumi.Input[str]
    ssl_policy_name: pulumi.Input[str]
    security_policy_name: pulumi.Input[str]
    certificate_map: pulumi.Input[str]
    # Exposed service -> its own rate-limiting Cloud Armor policy (services with a rate_limit only).
    service_policy_names: Mapping[str, pulumi.Input[str]] = field(default_factory=dict)
    # The Identity-Aware Proxy OAuth client's secret (a Pulumi secret, from Secret Manager) where the
    # endpoint authenticates clients with ID tokens.
    iap_client_secret: pulumi.Input[str] | None = None


@dataclass(frozen=True)
class GkeFacts(ClusterFacts):
    platform: GcpPlatform
    cluster_name: pulumi.Output[str]
    endpoint: pulumi.Output[str]
    certificate_authority: pulumi.Output[str]
    bucket_names: Mapping[BucketRole, pulumi.Output[str]]
    inference_endpoint: GkeEndpoint | None

    @property
    def cloud(self) -> str:
        return "gcp"

    @property
    def runs_device_exporters(self) -> bool:
        # GKE runs its own device plugins and exporters: the DCGM and Neuron alerts would watch nothing.
        return False

    def provider(self, name: str) -> k8s.Provider:
        return provider_for(name, gke_kubeconfig(self.cluster_name, self.endpoint, self.certificate_authority))

    def providers(self, kubernetes: k8s.Provider) -> Mapping[str, pulumi.ProviderResource]:
        return {"kubernetes": kubernetes}

    def scheduling(self, pool: NodePool) -> PoolScheduling | None:
        pool = gcp_pool(pool)
        machine = gcp_catalog.machine_type(pool.instance_type)
        vendor = gke_node_facts(pool.accelerator)
        if machine is None or vendor is None or machine.kind == "cpu":
            return None
        taints = [
            {"key": vendor.taint_key, "value": vendor.taint_value, "effect": vendor.taint_effect},
            *declared_taints(pool),
        ]
        selector = pool_selector(pool)
        if machine.kind == "tpu":
            shape = gcp_catalog.tpu_shape(pool.instance_type, pool.tpu_topology or "")
            assert shape is not None  # guaranteed by the GCP checks
            selector.update(shape.node_labels)
            # A multi-host pool's `scaling` counts slices (gcp_checks): its nodes are slices x VMs.
            max_nodes = pool.scaling.max * shape.vms if shape.multi_host else pool.scaling.max
            return PoolScheduling(
                resource=vendor.resource,
                per_node=shape.tpu_resource_per_vm,
                capacity=max_nodes * shape.tpu_resource_per_vm,
                selector=selector,
                taints=taints,
                max_nodes=max_nodes,
                vms_per_slice=shape.vms,
                exclusive_topology=NODE_POOL_LABEL if shape.multi_host else None,
                whole_node=True,
            )
        assert machine.accelerator is not None
        selector[gcp_catalog.GPU_ACCELERATOR_LABEL] = machine.accelerator
        return PoolScheduling(
            resource=vendor.resource,
            per_node=machine.accelerator_count,
            capacity=pool.scaling.max * machine.accelerator_count,
            selector=selector,
            taints=taints,
            max_nodes=pool.scaling.max,
        )

    def load_balancer_sources(self) -> list[str]:
        return list(GOOGLE_LOAD_BALANCER_RANGES)

    def service_account_annotations(self, workload: Workload) -> Mapping[str, pulumi.Input[str]]:
        return {}

    def checkpoint_uri(self, prefix: str) -> pulumi.Output[str]:
        return pulumi.Output.concat("gs://", self.bucket_names[BucketRole.checkpoints], "/", prefix)

    def exposure(self, platform: Platform, opts: pulumi.ResourceOptions) -> Exposure:
        platform = gcp_platform(platform)
        layer = platform.kubernetes
        spec = platform.inference_endpoint
        assert layer is not None
        exposed = [s for s in layer.inference_services if s.expose]
        if spec is None or self.inference_endpoint is None or not exposed:
            return Exposure()
        namespaces = {w.name: w.namespace for w in platform.workloads}
        gateway = InferenceGateway(
            f"{platform.name}-gateway",
            InferenceGatewayArgs(
                address_name=self.inference_endpoint.address_name,
                certificate_map=self.inference_endpoint.certificate_map,
                ssl_policy=self.inference_endpoint.ssl_policy_name,
                listener_port=spec.listener_port,
                http_redirect=spec.http_redirect,
                route_namespaces=[namespaces[s.workload] for s in exposed],
                labels={"app.kubernetes.io/part-of": "accelplane"},
            ),
            opts=opts,
        )
        iap, secrets = self._iap(platform, spec, sorted({namespaces[s.workload] for s in exposed}), opts)
        return Exposure(
            depends_on=[gateway, *secrets],
            backend=GatewayBackend(
                gateway_name=gateway.name,
                gateway_namespace=gateway.namespace,
                listener=gateway.listener,
                security_policy=self.inference_endpoint.security_policy_name,
                health_check=spec.health_check,
                services={s.name: _edge(s, spec, platform, self.inference_endpoint) for s in exposed},
                iap=iap,
            ),
        )

    def _iap(self, platform: GcpPlatform, spec: GcpInferenceEndpoint, namespaces: list[str],
             opts: pulumi.ResourceOptions) -> tuple[dict[str, object] | None, list[k8s.core.v1.Secret]]:
        """GCPBackendPolicy `iap` and, in each exposed service's namespace, the Secret it names: the OAuth
        client's secret under the key `key`, as GKE's Gateway reads it."""
        tokens = spec.client_auth.id_tokens if spec.client_auth is not None else None
        if tokens is None or self.inference_endpoint is None or self.inference_endpoint.iap_client_secret is None:
            return None, []
        value = self.inference_endpoint.iap_client_secret
        secrets = [
            k8s.core.v1.Secret(
                f"{platform.name}-iap-{namespace}",
                metadata={"name": IAP_SECRET_NAME, "namespace": namespace,
                          "labels": {"app.kubernetes.io/part-of": "accelplane"}},
                type="Opaque",
                string_data={"key": pulumi.Output.secret(value)},
                opts=opts,
            )
            for namespace in namespaces
        ]
        iap = {"enabled": True, "clientID": tokens.audience, "oauth2ClientSecret": {"name": IAP_SECRET_NAME}}
        return iap, secrets


def _edge(
    service: InferenceService, spec: GcpInferenceEndpoint, platform: GcpPlatform, endpoint: GkeEndpoint
) -> ServiceEdge:
    """What the load balancer applies to one service: its policy, probe and timeouts."""
    return ServiceEdge(
        security_policy=endpoint.service_policy_names.get(service.name, endpoint.security_policy_name),
        health_check=effective_health_check(spec.health_check, service.health_check),
        response=service.health_check.response if service.health_check else None,
        request_timeout=effective_request_timeout(service.timeouts, platform.environment),
        backend_timeout=effective_backend_timeout(service.timeouts, platform.environment),
    )
