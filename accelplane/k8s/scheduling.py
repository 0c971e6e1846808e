"""How a node pool looks to the scheduler: its selector labels and taints, in Kubernetes' spelling."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from accelplane.declaration import NodePool
from accelplane.node_labels import LABEL_PREFIX

# The clouds' APIs spell taint effects NO_SCHEDULE; Kubernetes spells them NoSchedule.
_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def pool_selector(pool: NodePool) -> dict[str, str]:
    return {f"{LABEL_PREFIX}/pool": pool.name}


def kubernetes_taints(taints: Iterable[Mapping[str, object]]) -> list[dict[str, str]]:
    """Taints as a cloud API writes them (key, value, effect NO_SCHEDULE …), as Kubernetes writes them."""
    return [
        {"key": str(t["key"]), "value": str(t.get("value", "")), "effect": _EFFECTS[str(t["effect"])]} for t in taints
    ]


def declared_taints(pool: NodePool) -> list[dict[str, str]]:
    """The taints the declaration puts on the pool's nodes (none by default), as Kubernetes writes them."""
    return kubernetes_taints({"key": t.key, "value": t.value, "effect": t.effect.value} for t in pool.taints or [])
