"""The GKE Gateway's policies, read in the cluster: each declared `GCPBackendPolicy` (Identity-Aware
Proxy with its OAuth client, the Cloud Armor policy, timeouts), `GCPGatewayPolicy` (the SSL policy) and
`HealthCheckPolicy`, by namespace and name through the cluster's Kubernetes API.

The cluster is reached as `accelplane rollout` reaches it: its endpoint and CA from the cluster just
read, with a Google access token of the same credentials. GKE authenticates a Google identity whose
token carries the `userinfo.email` scope ("Authenticate to the Kubernetes API server"), so verify asks
for that scope alone for these reads (its Google API calls keep `cloud-platform.read-only`); reading
a custom resource takes `container.thirdPartyObjects.get` (or an RBAC Role allowing `get` on these
kinds). Where the cluster's API cannot be reached or refuses the read, the policies are listed as not
verified with why (a skip): the rest of verify needs no cluster access.
"""

from __future__ import annotations

from typing import Any

import google.auth.exceptions

from accelplane.clouds.gcp.clients import GcpClients
from accelplane.clouds.gcp.k8s.cluster_access import cluster_access
from accelplane.rollout.kubernetes_api import ClusterAccess, KubernetesApi, KubernetesApiError
from accelplane.rules.view import Resource

POLICY_GROUP = "networking.gke.io/v1"
# Declared type -> the kind's plural in the API path (the pinned CRDs' names.plural).
POLICY_KINDS = {
    f"kubernetes:{POLICY_GROUP}:GCPBackendPolicy": "gcpbackendpolicies",
    f"kubernetes:{POLICY_GROUP}:GCPGatewayPolicy": "gcpgatewaypolicies",
    f"kubernetes:{POLICY_GROUP}:HealthCheckPolicy": "healthcheckpolicies",
}
IDENTITY_SCOPE = "https://www.googleapis.com/auth/userinfo.email"
# The IAM permission a GET of a custom resource needs on GKE ("Google Kubernetes Engine roles and
# permissions"), in docs/gcp/verify-role.yaml beside the Google API reads.
CLUSTER_PERMISSIONS = frozenset({"container.thirdPartyObjects.get"})
# A private control plane's endpoint is often not routable from where verify runs: give up quickly.
CLUSTER_TIMEOUT_SECONDS = 10.0


def verify_access(clients: GcpClients, cluster: dict[str, Any]) -> ClusterAccess | str:
    """The cluster's API as verify reaches it (the identity scope), or why it cannot."""
    try:
        credentials = clients.credentials_for(IDENTITY_SCOPE)
    except google.auth.exceptions.DefaultCredentialsError as error:
        return f"no credentials for the cluster's API ({error})"
    return cluster_access(credentials, cluster, f"cluster {cluster.get('name')}", CLUSTER_TIMEOUT_SECONDS)


def read_policies(access: ClusterAccess, declared: list[Resource]) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Declared URN -> the live object, for each one the cluster has; and why reading stopped, if it did
    (a 404 is a policy that does not exist: missing, not a failure to read)."""
    api = KubernetesApi(access, timeout=CLUSTER_TIMEOUT_SECONDS)
    found: dict[str, dict[str, Any]] = {}
    for resource in declared:
        metadata = resource.props.get("metadata") or {}
        path = (f"/apis/{POLICY_GROUP}/namespaces/{metadata.get('namespace', 'default')}/"
                f"{POLICY_KINDS[resource.type]}/{metadata.get('name')}")
        try:
            found[resource.urn] = api.get(path)
        except KubernetesApiError as error:
            if error.code == 404:
                continue
            return found, f"{access.where}: {error}"
    return found, None
