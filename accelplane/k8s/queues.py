"""`AcceleratorQueues`: Kueue flavors per accelerator pool, a ClusterQueue per team, LocalQueues.

A ResourceFlavor matches its pool exactly (the pool's node label and taints), so an admitted job
lands on the pool whose quota it used. All teams share one cohort, so idle quota is borrowed up
to each team's borrowing limit and reclaimed when the owner needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.declaration import Team

COHORT = "accelplane"
API_VERSION = "kueue.x-k8s.io/v1beta1"


@dataclass(frozen=True)
class Flavor:
    pool: str
    resource: str  # the accelerator's extended resource
    node_labels: Mapping[str, str]
    taints: Sequence[Mapping[str, str]]


@dataclass(frozen=True)
class AcceleratorQueuesArgs:
    flavors: Sequence[Flavor]
    teams: Sequence[Team]
    depends_on: Sequence[pulumi.Resource]


def local_queue_name(team: Team) -> str:
    return f"{team.name}-queue"


class AcceleratorQueues(pulumi.ComponentResource):
    def __init__(self, name: str, args: AcceleratorQueuesArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:AcceleratorQueues", name, None, opts)
        after = pulumi.ResourceOptions(parent=self, depends_on=list(args.depends_on))
        for flavor in args.flavors:
            k8s.apiextensions.CustomResource(
                f"{name}-flavor-{flavor.pool}",
                api_version=API_VERSION,
                kind="ResourceFlavor",
                metadata={"name": flavor.pool},
                spec={
                    "nodeLabels": dict(flavor.node_labels),
                    "nodeTaints": [dict(t) for t in flavor.taints],
                    # Admitted pods get the tolerations, so job authors need not know the taints.
                    "tolerations": [dict(t, operator="Equal") for t in flavor.taints],
                },
                opts=after,
            )
        covered = sorted({flavor.resource for flavor in args.flavors})
        for team in args.teams:
            flavors = []
            for flavor in args.flavors:
                if flavor.pool not in team.quotas:
                    continue
                flavors.append(
                    {
                        "name": flavor.pool,
                        "resources": [
                            {
                                "name": resource,
                                "nominalQuota": team.quotas[flavor.pool] if resource == flavor.resource else 0,
                                "borrowingLimit": team.borrowing_limit if resource == flavor.resource else 0,
                            }
                            for resource in covered
                        ],
                    }
                )
            k8s.apiextensions.CustomResource(
                f"{name}-cq-{team.name}",
                api_version=API_VERSION,
                kind="ClusterQueue",
                metadata={"name": team.name},
                spec={
                    "cohort": COHORT,
                    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": team.namespace}},
                    "queueingStrategy": "BestEffortFIFO",
                    "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                    "resourceGroups": [{"coveredResources": covered, "flavors": flavors}],
                },
                opts=after,
            )
            k8s.apiextensions.CustomResource(
                f"{name}-lq-{team.name}",
                api_version=API_VERSION,
                kind="LocalQueue",
                metadata={"name": local_queue_name(team), "namespace": team.namespace},
                spec={"clusterQueue": team.name},
                opts=after,
            )
        self.register_outputs({})
