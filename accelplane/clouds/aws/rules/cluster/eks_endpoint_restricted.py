"""AP-EKS-001: the cluster API endpoint is private, or public only to listed CIDRs (never the internet).

AWS treats a public endpoint without `publicAccessCidrs` as open to 0.0.0.0/0.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_list, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    public = as_bool(resource.get("vpcConfig", "endpointPublicAccess"))
    if public is False:
        return
    cidrs = [as_str(c) for c in as_list(resource.get("vpcConfig", "publicAccessCidrs"))]
    if not cidrs or any(c in ("0.0.0.0/0", "::/0") for c in cidrs):
        yield "the cluster API endpoint is public to the whole internet"
    if as_bool(resource.get("vpcConfig", "endpointPrivateAccess")) is not True:
        yield "private endpoint access is off: nodes reach the API over the internet"


RULE = Rule(
    id="AP-EKS-001",
    name="eks-endpoint-restricted",
    description="Checks whether the EKS API endpoint is private, or public only to specific CIDRs.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set endpoint_private_access true and either endpoint_public_access false or "
    "public_access_cidrs to your office/VPN ranges.",
    resource_types=frozenset({t.EKS_CLUSTER}),
    check=check,
    categories=("network-exposure",),
)
