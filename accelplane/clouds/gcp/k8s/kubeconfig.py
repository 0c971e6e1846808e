"""The GKE cluster's kubeconfig: tokens from `gke-gcloud-auth-plugin` (the gcloud identity's
short-lived token, https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl)."""

from __future__ import annotations

import pulumi

from accelplane.k8s.provider import render_kubeconfig

GKE_AUTH_PLUGIN = "gke-gcloud-auth-plugin"


def gke_kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str]
) -> pulumi.Output[str]:
    """GKE: the endpoint is an address (GKE reports no scheme); tokens from gke-gcloud-auth-plugin,
    which reads the cluster it is for from the kubeconfig (`provideClusterInfo`)."""

    def render(values: list[str]) -> str:
        name, address, ca = values
        return render_kubeconfig(
            name,
            f"https://{address}",
            ca,
            {
                "command": GKE_AUTH_PLUGIN,
                "installHint": "Install gke-gcloud-auth-plugin: "
                "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
                "provideClusterInfo": True,
                "interactiveMode": "Never",
            },
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(render)
