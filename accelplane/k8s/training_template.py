"""`TrainingJobTemplate`: a ready-to-use JobSet for one training pool, kept in a ConfigMap.

JobSet (kubernetes-sigs) over the Kubeflow trainer CRD: it is the upstream primitive for
multi-node jobs (indexed jobs, headless service for rendezvous, whole-set restarts with
`failurePolicy.maxRestarts`), Kueue admits it natively, and the Kubeflow trainer v2 itself builds
on it. It is stored as a template, not created: a live JobSet with a queue label would be
admitted and start at once. Start one with
`kubectl -n <ns> get cm <pool>-jobset -o jsonpath='{.data.jobset\\.yaml}' | kubectl create -f -`.
Every restart resumes from the newest checkpoint: the trainer reads ACCELPLANE_RESUME_FROM=latest
and ACCELPLANE_CHECKPOINT_URI (the workload's checkpoint prefix, reached through its role).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from accelplane.accelerator_vendors import EFA_RESOURCE
from accelplane.config.model import TrainingTemplate
from accelplane.k8s.priority_classes import TRAINING_PRIORITY

TEMPLATE_KEY = "jobset.yaml"


@dataclass(frozen=True)
class TrainingJobTemplateArgs:
    spec: TrainingTemplate
    job_name: str
    namespace: str
    service_account: str
    queue: str | None
    accelerator_resource: str
    accelerators_per_node: int
    efa_interfaces: int
    nodes: int
    pool_selector: Mapping[str, str]
    tolerations: Sequence[Mapping[str, str]]
    checkpoint_uri: pulumi.Input[str]


def jobset_manifest(args: TrainingJobTemplateArgs, checkpoint_uri: str) -> dict[str, Any]:
    resources = {args.accelerator_resource: str(args.accelerators_per_node)}
    if args.efa_interfaces:
        resources[EFA_RESOURCE] = str(args.efa_interfaces)
    labels = {"app.kubernetes.io/part-of": "accelplane", "accelplane.io/pool": args.spec.node_pool}
    if args.queue:
        labels["kueue.x-k8s.io/queue-name"] = args.queue
    pod_spec = {
        "serviceAccountName": args.service_account,
        "priorityClassName": TRAINING_PRIORITY,
        "restartPolicy": "Never",
        "nodeSelector": dict(args.pool_selector),
        "tolerations": [dict(t, operator="Equal") for t in args.tolerations],
        "containers": [
            {
                "name": "trainer",
                "image": args.spec.image,
                "command": list(args.spec.command),
                "env": [
                    {"name": "ACCELPLANE_CHECKPOINT_URI", "value": checkpoint_uri},
                    {"name": "ACCELPLANE_RESUME_FROM", "value": "latest"},
                    {"name": "ACCELPLANE_NODES", "value": str(args.nodes)},
                ],
                "resources": {"requests": resources, "limits": resources},
                "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                "securityContext": {"allowPrivilegeEscalation": False},
            }
        ],
        # NCCL needs far more shared memory than the 64 MiB container default.
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
    }
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"generateName": f"{args.job_name}-", "namespace": args.namespace, "labels": dict(labels)},
        "spec": {
            "failurePolicy": {"maxRestarts": args.spec.max_restarts},
            "network": {"enableDNSHostnames": True},
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": args.nodes,
                            "completions": args.nodes,
                            "completionMode": "Indexed",
                            "backoffLimit": 0,
                            "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
                        }
                    },
                }
            ],
        },
    }


class TrainingJobTemplate(pulumi.ComponentResource):
    def __init__(self, name: str, args: TrainingJobTemplateArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:TrainingJobTemplate", name, None, opts)
        document = pulumi.Output.from_input(args.checkpoint_uri).apply(
            lambda uri: yaml.safe_dump(jobset_manifest(args, uri), sort_keys=False)
        )
        k8s.core.v1.ConfigMap(
            f"{name}-template",
            metadata={
                "name": f"{args.job_name}-jobset",
                "namespace": args.namespace,
                "labels": {"app.kubernetes.io/part-of": "accelplane", "accelplane.io/template": "jobset"},
            },
            data={TEMPLATE_KEY: document},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})
