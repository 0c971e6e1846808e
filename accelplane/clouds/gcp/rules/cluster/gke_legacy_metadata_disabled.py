"""AP-GKE-007: the legacy Compute Engine metadata endpoints stay disabled on GKE nodes.

The v0.1/v1beta1 endpoints answer without the `Metadata-Flavor` header, so a request forged through
any pod (SSRF) can read the node's credentials. GKE sets `disable-legacy-endpoints: "true"` in the
node metadata by default; pulumi-gcp unsets it when `nodeConfig.metadata` is given without it
(provider documentation of `metadata`). So a node configuration either leaves `metadata` out or
keeps `disable-legacy-endpoints` at "true". Twin of AP-EC2-001 (IMDSv2).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp.rules.cluster.gke_nodes import NODE_TYPES, at, node_configs
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get, mapping

KEY = "disable-legacy-endpoints"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, config in node_configs(resource):
        metadata = mapping(get(config, "metadata"))
        if not metadata:
            continue
        value = as_str(metadata.get(KEY)) if KEY in metadata else None
        if value is None:
            yield at(where, f"nodeConfig.metadata is set without {KEY}: the provider unsets GKE's default and "
                            "re-enables the legacy metadata endpoints")
        elif value.lower() != "true":
            yield at(where, f"nodeConfig.metadata sets {KEY} to {value!r}: the legacy metadata endpoints answer "
                            "without the Metadata-Flavor header")


RULE = Rule(
    id="AP-GKE-007",
    name="gke-legacy-metadata-disabled",
    description="Checks whether GKE node metadata keeps disable-legacy-endpoints at \"true\" when it sets any "
    "metadata.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Add \"disable-legacy-endpoints\": \"true\" to node_config.metadata (or leave metadata unset).",
    resource_types=NODE_TYPES,
    check=check,
    categories=("node-integrity", "identity"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/protecting-cluster-metadata",),
)
