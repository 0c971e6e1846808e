"""The EKS cluster's kubeconfig: tokens from `aws eks get-token`, never stored."""

from __future__ import annotations

import pulumi

from accelplane.k8s.provider import render_kubeconfig


def eks_kubeconfig(
    cluster_name: pulumi.Input[str], endpoint: pulumi.Input[str], ca_data: pulumi.Input[str], region: str
) -> pulumi.Output[str]:
    """EKS: the endpoint is a URL; tokens from `aws eks get-token` for the cluster in `region`."""

    def render(values: list[str]) -> str:
        name, server, ca = values
        return render_kubeconfig(
            name,
            server,
            ca,
            {
                "command": "aws",
                "args": ["eks", "get-token", "--cluster-name", name, "--region", region, "--output", "json"],
                "interactiveMode": "Never",
            },
        )

    return pulumi.Output.all(cluster_name, endpoint, ca_data).apply(render)
