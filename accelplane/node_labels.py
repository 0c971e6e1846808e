"""The Kubernetes labels every node of a pool carries, on either cloud.

`accelplane.io/pool`, `/purpose`, `/accelerator`, `/profile` and `versions.accelplane.io/<key>` (each
pinned version of the pool's software profile) let schedulers select pools and let the
version-matrix rules judge a state or plan file exactly as the declaration: an EKS node group and
a GKE node pool carry the same facts under the same keys.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the rules read the labels' names without loading the declaration models
    from accelplane.declaration import NodePool, SoftwareProfile

LABEL_PREFIX = "accelplane.io"
VERSION_LABEL_PREFIX = f"versions.{LABEL_PREFIX}"
POOL_LABEL = f"{LABEL_PREFIX}/pool"  # the pool's name, on its nodes (and an AWS node group's tags)


def label_value(value: str) -> str:
    # Kubernetes label values: [A-Za-z0-9._-], at most 63 characters.
    return re.sub(r"[^A-Za-z0-9._-]", "_", value)[:63]


def pool_labels(pool: NodePool, profile: SoftwareProfile | None, profile_name: str | None) -> dict[str, str]:
    labels = {
        POOL_LABEL: pool.name,
        f"{LABEL_PREFIX}/purpose": pool.purpose.value,
        f"{LABEL_PREFIX}/accelerator": pool.accelerator or "none",
        f"{LABEL_PREFIX}/efa": str(pool.uses_efa()).lower(),
    }
    if pool.group:
        labels[f"{LABEL_PREFIX}/group"] = pool.group
    # Cost facts on the nodes: the plan alone prices a pool (accelplane.cost.estimate) and the idle
    # and expiry checks find their pools (docs/cost.md).
    if pool.capacity.discount is not None:
        discount = pool.capacity.discount
        labels[f"{LABEL_PREFIX}/discount"] = f"{discount.kind.value}-{discount.percent:g}"
    if pool.expiry is not None:
        labels[f"{LABEL_PREFIX}/owner"] = pool.expiry.owner
        labels[f"{LABEL_PREFIX}/expires"] = pool.expiry.expires.isoformat()
    if pool.idle is not None:
        labels[f"{LABEL_PREFIX}/idle-below-percent"] = f"{pool.idle.below_percent:g}"
        labels[f"{LABEL_PREFIX}/idle-for-hours"] = str(pool.idle.for_hours)
    if profile is not None and profile_name:
        labels[f"{LABEL_PREFIX}/profile"] = profile_name
        for key, value in profile.versions().items():
            labels[f"{VERSION_LABEL_PREFIX}/{key.replace('_', '-')}"] = label_value(value)
    return {**labels, **pool.labels}
