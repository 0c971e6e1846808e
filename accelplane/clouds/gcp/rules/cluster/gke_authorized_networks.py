"""AP-GKE-002: the GKE control plane's public endpoint is reachable from listed CIDRs only.

The endpoint is public unless `privateClusterConfig.enablePrivateEndpoint` is true or
`controlPlaneEndpointsConfig.ipEndpointsConfig.enabled` is false. A public endpoint needs
`masterAuthorizedNetworksConfig` (the block's presence enables it; with no `cidrBlocks` no external
address gets in) without `gcpPublicCidrsAccessEnabled` (every Google Cloud public IP, anyone's VM).
No cidrBlock may be 0.0.0.0/0 or ::/0, public endpoint or not. Twin of AP-EKS-001.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str, get

WORLD = frozenset({"0.0.0.0/0", "::/0"})


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    private = as_bool(resource.get("privateClusterConfig", "enablePrivateEndpoint")) is True or as_bool(
        resource.get("controlPlaneEndpointsConfig", "ipEndpointsConfig", "enabled")) is False
    networks = resource.get("masterAuthorizedNetworksConfig")
    cidrs = [as_str(get(block, "cidrBlock")) for block in as_list(get(networks, "cidrBlocks"))]
    for cidr in cidrs:
        if cidr in WORLD:
            yield f"masterAuthorizedNetworksConfig allows {cidr}: the control plane is open to the internet"
    if private:
        return
    if networks is None:
        yield "the control plane endpoint is public and masterAuthorizedNetworksConfig is off: open to the internet"
        return
    if as_bool(get(networks, "gcpPublicCidrsAccessEnabled")):
        yield "gcpPublicCidrsAccessEnabled admits every Google Cloud public IP address to the control plane"


RULE = Rule(
    id="AP-GKE-002",
    name="gke-authorized-networks",
    description="Checks whether a GKE control plane with a public endpoint limits it to authorized networks, none "
    "of them 0.0.0.0/0.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set master_authorized_networks_config.cidr_blocks to the declaration's api_allowed_cidrs (or "
    "make the endpoint private).",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks",),
)
