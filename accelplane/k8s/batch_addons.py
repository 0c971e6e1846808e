"""`BatchAddons`: Kueue (quota-based admission) and JobSet (multi-node jobs), versions pinned."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import yaml

from accelplane.cloud_support import cloud_support, known_clouds
from accelplane.k8s.pinned_release import pinned_release


@dataclass(frozen=True)
class BatchAddonsArgs:
    kueue: str
    jobset: str


class BatchAddons(pulumi.ComponentResource):
    kueue: pulumi.Resource
    jobset: pulumi.Resource

    def __init__(self, name: str, args: BatchAddonsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:BatchAddons", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.jobset = pinned_release(f"{name}-jobset", "jobset", args.jobset, {}, child)
        self.kueue = pinned_release(
            f"{name}-kueue",
            "kueue",
            args.kueue,
            {"managerConfig": {"controllerManagerConfigYaml": kueue_config()}},
            pulumi.ResourceOptions(parent=self, depends_on=[self.jobset]),
        )
        self.register_outputs({})


# The ClusterQueues govern accelerators only. Kueue leaves a workload pending for ever when it requests
# a resource no queue covers ("resource cpu unavailable in ClusterQueue"), and every pod requests CPU
# and memory (the namespaces' LimitRange defaults them), training pods their network fabric's
# interfaces too (each cloud names its own: CloudSupport.fabric_resources): those are dropped from
# Kueue's accounting (https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta1/#Resources); the
# namespaces' ResourceQuota and the nodes still bound them.
UNQUEUED_RESOURCE_PREFIXES = ("cpu", "memory", "ephemeral-storage", "hugepages-")


def unqueued_resources() -> tuple[str, ...]:
    """What Kueue leaves out of its accounting: the resources above and every installed cloud's fabric
    resources (one list on every cluster, so a stack's Kueue configuration does not depend on its cloud)."""
    fabric = [name for cloud in known_clouds() for name in cloud_support(cloud).fabric_resources]
    return (*UNQUEUED_RESOURCE_PREFIXES, *fabric)


def kueue_config() -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "config.kueue.x-k8s.io/v1beta1",
            "kind": "Configuration",
            "manageJobsWithoutQueueName": False,
            # Kueue manages JobSets (and plain Jobs) submitted to a LocalQueue.
            "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]},
            "resources": {"excludeResourcePrefixes": list(unqueued_resources())},
        },
        sort_keys=False,
    )
