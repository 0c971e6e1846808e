"""How a node pool looks to the scheduler: its selector labels, taints and tolerations (k8s form)."""

from __future__ import annotations

from pulumi_kubernetes.core.v1 import TolerationArgsDict

from accelplane.accelerator_vendors import VendorNodeFacts
from accelplane.aws.node_pool import default_taints
from accelplane.config.model import NodePool
from accelplane.node_labels import LABEL_PREFIX

_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def pool_selector(pool: NodePool) -> dict[str, str]:
    return {f"{LABEL_PREFIX}/pool": pool.name}


def pool_taints(pool: NodePool, vendor: VendorNodeFacts) -> list[dict[str, str]]:
    """The pool's node taints as Kubernetes writes them (EKS spells effects NO_SCHEDULE)."""
    return [
        {"key": str(t["key"]), "value": str(t.get("value", "")), "effect": _EFFECTS[str(t["effect"])]}
        for t in default_taints(pool, vendor)
    ]


def declared_taints(pool: NodePool) -> list[dict[str, str]]:
    """The taints the declaration puts on the pool's nodes (none by default), as Kubernetes writes them."""
    return [{"key": t.key, "value": t.value, "effect": _EFFECTS[t.effect.value]} for t in pool.taints or []]


def pool_tolerations(pool: NodePool, vendor: VendorNodeFacts) -> list[TolerationArgsDict]:
    return [
        {"key": t["key"], "operator": "Equal", "value": t["value"], "effect": t["effect"]}
        for t in pool_taints(pool, vendor)
    ]
