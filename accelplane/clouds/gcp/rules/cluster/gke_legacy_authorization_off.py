"""AP-GKE-010: no legacy authorization on GKE: legacy ABAC off, no client certificate issued.

Legacy ABAC (`enableLegacyAbac`) grants permissions outside RBAC; a client certificate
(`masterAuth.clientCertificateConfig.issueClientCertificate`) is a static admin credential that
cannot be revoked and ends up in the state.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_bool(resource.get("enableLegacyAbac")):
        yield "enableLegacyAbac is true: permissions are granted outside RBAC"
    if as_bool(resource.get("masterAuth", "clientCertificateConfig", "issueClientCertificate")):
        yield "masterAuth issues a client certificate: a static credential that cannot be revoked"


RULE = Rule(
    id="AP-GKE-010",
    name="gke-legacy-authorization-off",
    description="Checks whether a GKE cluster leaves legacy ABAC off and issues no client certificate.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set enable_legacy_abac=False and master_auth.client_certificate_config.issue_client_certificate="
    "False; grant access with RBAC and IAM.",
    resource_types=frozenset({t.GKE_CLUSTER}),
    check=check,
    categories=("identity", "kubernetes"),
    references=("https://cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster"
                "#leave_abac_disabled_default_for_110",),
)
