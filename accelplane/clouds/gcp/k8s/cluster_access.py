"""How a GKE cluster's Kubernetes API is reached with Google credentials (rollout, verify): the endpoint
and CA the cluster reports (`clusters.get` / `clusters.list`), and a bearer token the credentials
refresh as they expire (GKE authenticates the Google identity behind it)."""

from __future__ import annotations

import base64
from typing import Any

import google.auth.exceptions
import google_auth_httplib2
import httplib2

from accelplane.rollout.kubernetes_api import ClusterAccess, KubernetesApiError


def cluster_access(credentials: Any, cluster: dict[str, Any], where: str, timeout: float) -> ClusterAccess | str:
    """How to reach the cluster's API with `credentials`, or why it cannot be reached."""
    endpoint = cluster.get("endpoint")
    ca = (cluster.get("masterAuth") or {}).get("clusterCaCertificate")
    if not endpoint or not ca:
        return f"{where} has no endpoint or CA yet"

    def token() -> str:
        if not credentials.valid:
            try:
                credentials.refresh(google_auth_httplib2.Request(httplib2.Http(timeout=timeout)))
            except google.auth.exceptions.GoogleAuthError as error:
                raise KubernetesApiError("credentials", str(error)) from None
        return str(credentials.token)

    return ClusterAccess(server=f"https://{endpoint}", ca_pem=base64.b64decode(ca), token=token, where=where)
