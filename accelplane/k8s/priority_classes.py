"""`PriorityClasses`: inference above training; training never preempts anyone."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

INFERENCE_PRIORITY = "accelplane-inference"
TRAINING_PRIORITY = "accelplane-training"


class PriorityClasses(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:PriorityClasses", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        k8s.scheduling.v1.PriorityClass(
            f"{name}-inference",
            metadata={"name": INFERENCE_PRIORITY},
            value=100000,
            preemption_policy="PreemptLowerPriority",
            global_default=False,
            description="Inference serving: may preempt training when capacity is short.",
            opts=child,
        )
        k8s.scheduling.v1.PriorityClass(
            f"{name}-training",
            metadata={"name": TRAINING_PRIORITY},
            value=1000,
            # Training is preemptible by inference and never evicts other pods itself.
            preemption_policy="Never",
            global_default=False,
            description="Training: preemptible; resumes from its latest checkpoint.",
            opts=child,
        )
        self.register_outputs({})
