"""An explicit Kubernetes provider built from the cluster's endpoint and CA.

Never the user's default kubeconfig: a `pulumi up` from a laptop with another context selected
must not touch another cluster. Credentials come from an exec plugin at each call, so no token is
ever in state: `aws eks get-token` for EKS, `gke-gcloud-auth-plugin` (the gcloud identity's
short-lived token, https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl)
for GKE.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
GKE_AUTH_PLUGIN = "gke-gcloud-auth-plugin"


def _render(name: str, server: str, ca: str, exec_config: dict[str, Any]) -> str:
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca}}],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": {"exec": exec_config}}],
        },
        sort_keys=True,
    )


def kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> pulumi.Output[str]:
    """EKS: the endpoint is a URL; tokens from `aws eks get-token` for the cluster in `region`."""

    def render(values: list[str]) -> str:
        name, server, ca = values
        return _render(
            name,
            server,
            ca,
            {
                "apiVersion": EXEC_API_VERSION,
                "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", name, "--region", region, "--output", "json"],
                "interactiveMode": "Never",
            },
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(render)


def gke_kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str]
) -> pulumi.Output[str]:
    """GKE: the endpoint is an address (GKE reports no scheme); tokens from gke-gcloud-auth-plugin,
    which reads the cluster it is for from the kubeconfig (`provideClusterInfo`)."""

    def render(values: list[str]) -> str:
        name, address, ca = values
        return _render(
            name,
            f"https://{address}",
            ca,
            {
                "apiVersion": EXEC_API_VERSION,
                "command": GKE_AUTH_PLUGIN,
                "installHint": "Install gke-gcloud-auth-plugin: "
                "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
                "provideClusterInfo": True,
                "interactiveMode": "Never",
            },
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(render)


def provider_for(name: str, config: pulumi.Input[str]) -> k8s.Provider:
    return k8s.Provider(
        name,
        kubeconfig=config,
        # Server-side apply lets controllers own their fields (HPA owns replicas) without fights.
        enable_server_side_apply=True,
        delete_unreachable=False,
    )


def cluster_provider(
    name: str, cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> k8s.Provider:
    """The EKS cluster's provider."""
    return provider_for(name, kubeconfig(cluster_name, endpoint, ca_data, region))
