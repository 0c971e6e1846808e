"""GKE's flex-start provisioning mode (Dynamic Workload Scheduler) for a node pool: what it needs, in
GKE's own terms.

Facts (GKE documentation, "About GPU, TPU and H4D consumption with flex-start provisioning mode" and
"Run a small batch workload with GPUs and flex-start provisioning mode", read 2026-12-07): flex-start
nodes run for up to seven days; GPUs need GKE 1.32.2-gke.1652000 or later; TPUs need 1.33.0-gke.1712000
or later, in single-host TPU slice node pools only, TPU Trillium (v6e) in asia-northeast1-b, us-east5-a
and us-east5-b, v5e in us-west4-a, v5p in us-east5-a (v3 and v4 not at all); the node pool autoscales
from zero with location policy ANY, consumes no reservation and has node auto-repair off. Billed at
Dynamic Workload Scheduler prices (discounts up to 53% on vCPUs, GPUs and TPUs).

Queued provisioning (GKE, "Run a large-scale workload with flex-start with queued provisioning", read
2026-12-07): a flex-start node pool created with queued provisioning as well gets nodes only for a
ProvisioningRequest, all of a request's nodes at the same time (for workloads that must start on many
nodes together); Kueue may create the requests. The guide covers GPU node pools.
"""

from __future__ import annotations

import re

SOURCE = "https://cloud.google.com/kubernetes-engine/docs/concepts/dws"
QUEUED_SOURCE = "https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest"
MAX_NODE_DAYS = 7
MIN_GKE = {"gpu": "1.32.2-gke.1652000", "tpu": "1.33.0-gke.1712000"}
TPU_ZONES = {
    "v6e": frozenset({"asia-northeast1-b", "us-east5-a", "us-east5-b"}),
    "v5e": frozenset({"us-west4-a"}),
    "v5p": frozenset({"us-east5-a"}),
}
LOCATION_POLICY = "ANY"
NO_RESERVATION = "NO_RESERVATION"
PRICE_NOTE = ("flex-start is billed at Dynamic Workload Scheduler prices (up to 53% below on-demand, GKE's "
              "flex-start page): this is the on-demand price, an upper bound")


def gke_version_key(version: str) -> tuple[int, ...]:
    """1.33.0-gke.1712000 -> (1, 33, 0, 1712000), for comparing GKE versions."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def version_problem(kind: str, version: str | None) -> str | None:
    """Why the pinned GKE version cannot run flex-start for a `kind` ("gpu" or "tpu") pool, or None."""
    floor = MIN_GKE.get(kind)
    if floor is None or version is None or gke_version_key(version) >= gke_version_key(floor):
        return None
    return f"flex-start for {kind.upper()}s needs GKE {floor} or later (gke_version is {version})"
