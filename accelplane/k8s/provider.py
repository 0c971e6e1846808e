"""An explicit Kubernetes provider built from the cluster's endpoint and CA.

Never the user's default kubeconfig: a `pulumi up` from a laptop with another context selected
must not touch another cluster. Tokens come from `aws eks get-token` at each call (no secret in
state).
"""

from __future__ import annotations

import json

import pulumi
import pulumi_kubernetes as k8s


def kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> pulumi.Output[str]:
    def render(values: list[str]) -> str:
        name, server, ca = values
        return json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca}}],
                "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
                "current-context": name,
                "users": [
                    {
                        "name": name,
                        "user": {
                            "exec": {
                                "apiVersion": "client.authentication.k8s.io/v1beta1",
                                "command": "aws",
                                "args": [
                                    "eks",
                                    "get-token",
                                    "--cluster-name",
                                    name,
                                    "--region",
                                    region,
                                    "--output",
                                    "json",
                                ],
                                "interactiveMode": "Never",
                            }
                        },
                    }
                ],
            },
            sort_keys=True,
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(render)


def cluster_provider(
    name: str, cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> k8s.Provider:
    return k8s.Provider(
        name,
        kubeconfig=kubeconfig(cluster_name, endpoint, ca_data, region),
        # Server-side apply lets controllers own their fields (HPA owns replicas) without fights.
        enable_server_side_apply=True,
        delete_unreachable=False,
    )
