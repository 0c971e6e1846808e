"""An explicit Kubernetes provider built from the cluster's endpoint and CA.

Never the user's default kubeconfig: a `pulumi up` from a laptop with another context selected
must not touch another cluster. Credentials come from an exec plugin at each call, so no token is
ever in state; which plugin is the cloud's (`clouds/<cloud>/k8s/kubeconfig.py`).
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def render_kubeconfig(name: str, server: str, ca: str, exec_config: dict[str, Any]) -> str:
    """A one-cluster kubeconfig whose user runs `exec_config` for every token."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca}}],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": {"exec": {"apiVersion": EXEC_API_VERSION, **exec_config}}}],
        },
        sort_keys=True,
    )


def provider_for(name: str, config: pulumi.Input[str]) -> k8s.Provider:
    return k8s.Provider(
        name,
        kubeconfig=config,
        # Server-side apply lets controllers own their fields (HPA owns replicas) without fights.
        enable_server_side_apply=True,
        delete_unreachable=False,
    )
