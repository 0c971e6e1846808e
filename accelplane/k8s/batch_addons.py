"""`BatchAddons`: Kueue (quota-based admission) and JobSet (multi-node jobs), versions pinned."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

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
            # Kueue manages JobSets (and plain Jobs) submitted to a LocalQueue.
            {"managerConfig": {"controllerManagerConfigYaml": _KUEUE_CONFIG}},
            pulumi.ResourceOptions(parent=self, depends_on=[self.jobset]),
        )
        self.register_outputs({})


_KUEUE_CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
manageJobsWithoutQueueName: false
integrations:
  frameworks:
  - batch/job
  - jobset.x-k8s.io/jobset
"""
