"""What GKE does on its own per accelerator vendor: the extended resource its device plugin advertises
and the taint it puts on the vendor's nodes (GKE Standard runs its own device plugins for GPUs and TPUs)."""

from __future__ import annotations

from dataclasses import dataclass

from accelplane.accelerator_vendors import vendor_of


@dataclass(frozen=True)
class GkeVendorFacts:
    """What GKE does on its own for a vendor's nodes: its device plugin advertises `resource`, and GKE
    taints the nodes `taint_key=taint_value:NoSchedule` so only pods that tolerate it land there."""

    vendor: str
    resource: str
    taint_key: str
    taint_value: str
    taint_effect: str  # Kubernetes spelling
    source: str


# GKE Standard runs its own device plugins for both (no chart to install): TPU nodes carry
# google.com/tpu=present:NoSchedule (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus#how_tpus_work),
# GPU nodes nvidia.com/gpu=present:NoSchedule in a cluster that also has other pools
# (https://cloud.google.com/kubernetes-engine/docs/concepts/gpus).
_GKE_VENDORS: dict[str, GkeVendorFacts] = {
    "google": GkeVendorFacts(
        vendor="google",
        resource="google.com/tpu",
        taint_key="google.com/tpu",
        taint_value="present",
        taint_effect="NoSchedule",
        source="https://cloud.google.com/kubernetes-engine/docs/concepts/tpus#how_tpus_work",
    ),
    "nvidia": GkeVendorFacts(
        vendor="nvidia",
        resource="nvidia.com/gpu",
        taint_key="nvidia.com/gpu",
        taint_value="present",
        taint_effect="NoSchedule",
        source="https://cloud.google.com/kubernetes-engine/docs/concepts/gpus",
    ),
}


def gke_node_facts(accelerator: str | None) -> GkeVendorFacts | None:
    """Facts for a GKE pool of this accelerator; `None` for CPU pools and vendors GKE has no plugin for."""
    if accelerator is None:
        return None
    return _GKE_VENDORS.get(vendor_of(accelerator))
