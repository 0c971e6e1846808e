"""`TrainingJobTemplate`: a ready-to-use JobSet for one training pool, kept in a ConfigMap.

JobSet (kubernetes-sigs) over the Kubeflow trainer CRD: it is the upstream primitive for
multi-node jobs (indexed jobs, headless service for rendezvous, whole-set restarts with
`failurePolicy.maxRestarts`), Kueue admits it natively, and the Kubeflow trainer v2 itself builds
on it. It is stored as a template, not created: a live JobSet with a queue label would be
admitted and start at once. Start one with
`kubectl -n <ns> get cm <pool>-jobset -o jsonpath='{.data.jobset\\.yaml}' | kubectl create -f -`.
Every restart resumes from the newest checkpoint: the trainer reads ACCELPLANE_RESUME_FROM=latest
and ACCELPLANE_CHECKPOINT_URI (the workload's checkpoint prefix, reached through its identity:
`s3://` on AWS, `gs://` on Google Cloud).

On a multi-host TPU pool the unit is a slice: one replicated job per slice (`replicas` = slices),
each an Indexed Job with `completions` = `parallelism` = the slice's VMs, every pod taking all of
its VM's chips; JobSet's headless service (`network.enableDNSHostnames`, subdomain = the JobSet's
name) gives each pod a stable name, from which GKE sets TPU_WORKER_ID and TPU_WORKER_HOSTNAMES.
`alpha.jobset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool` places each replicated
job alone on one slice's node pool (https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-multislice).
With several slices (multislice) each pod also gets MEGASCALE_NUM_SLICES, MEGASCALE_SLICE_ID (the
job index) and MEGASCALE_COORDINATOR_ADDRESS (the first pod of the first slice), which libtpu uses
to join the slices over the data-centre network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from accelplane.config.training_launcher import ACCELERATORS_PER_NODE_ENV, NODES_ENV
from accelplane.declaration import TrainingTemplate
from accelplane.k8s.mirror import current_image
from accelplane.k8s.priority_classes import TRAINING_PRIORITY
from accelplane.node_labels import POOL_LABEL

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
    fabric: Mapping[str, int]  # the network fabric's extended resources per node (AWS: EFA interfaces)
    nodes: int  # per replicated job: a slice's VMs on TPU, else the whole job's nodes
    pool_selector: Mapping[str, str]
    tolerations: Sequence[Mapping[str, str]]
    checkpoint_uri: pulumi.Input[str]
    slices: int | None = None  # TPU: the job's slices, one replicated job each; None: one job of `nodes`
    exclusive_topology: str | None = None  # node label each replicated job has to itself


REPLICATED_JOB = "workers"
EXCLUSIVE_TOPOLOGY_ANNOTATION = "alpha.jobset.sigs.k8s.io/exclusive-topology"


def _label_env(name: str, label: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{label}']"}}}


def _multislice_env(slices: int) -> list[dict[str, Any]]:
    """What libtpu needs to join the slices (JobSet labels every pod with its job index and JobSet)."""
    return [
        _label_env("JOBSET_NAME", "jobset.sigs.k8s.io/jobset-name"),
        {"name": "MEGASCALE_NUM_SLICES", "value": str(slices)},
        _label_env("MEGASCALE_SLICE_ID", "jobset.sigs.k8s.io/job-index"),
        {"name": "MEGASCALE_COORDINATOR_ADDRESS", "value": f"$(JOBSET_NAME)-{REPLICATED_JOB}-0-0.$(JOBSET_NAME)"},
    ]


def jobset_manifest(args: TrainingJobTemplateArgs, checkpoint_uri: str) -> dict[str, Any]:
    resources = {args.accelerator_resource: str(args.accelerators_per_node)}
    resources.update({name: str(count) for name, count in args.fabric.items() if count})
    labels = {"app.kubernetes.io/part-of": "accelplane", POOL_LABEL: args.spec.node_pool}
    if args.queue:
        labels["kueue.x-k8s.io/queue-name"] = args.queue
    env: list[dict[str, Any]] = [
        {"name": "ACCELPLANE_CHECKPOINT_URI", "value": checkpoint_uri},
        {"name": "ACCELPLANE_RESUME_FROM", "value": "latest"},
        # The job's size, once: a launcher reads it as `--nnodes=$(ACCELPLANE_NODES)`.
        {"name": NODES_ENV, "value": str(args.nodes * (args.slices or 1))},
        {"name": ACCELERATORS_PER_NODE_ENV, "value": str(args.accelerators_per_node)},
    ]
    if args.slices is not None:
        env.append({"name": "ACCELPLANE_SLICES", "value": str(args.slices)})
    if args.slices is not None and args.slices > 1:
        env.extend(_multislice_env(args.slices))
    pod_spec = {
        "serviceAccountName": args.service_account,
        "priorityClassName": TRAINING_PRIORITY,
        "restartPolicy": "Never",
        "nodeSelector": dict(args.pool_selector),
        "tolerations": [dict(t, operator="Equal") for t in args.tolerations],
        "containers": [
            {
                "name": "trainer",
                "image": current_image(args.spec.image),
                "command": list(args.spec.command),
                "env": env,
                "resources": {"requests": resources, "limits": resources},
                "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                "securityContext": {"allowPrivilegeEscalation": False},
            }
        ],
        # NCCL needs far more shared memory than the 64 MiB container default.
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
    }
    metadata: dict[str, Any] = {
        "generateName": f"{args.job_name}-",
        "namespace": args.namespace,
        "labels": dict(labels),
    }
    if args.exclusive_topology:
        metadata["annotations"] = {EXCLUSIVE_TOPOLOGY_ANNOTATION: args.exclusive_topology}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": metadata,
        "spec": {
            "failurePolicy": {"maxRestarts": args.spec.max_restarts},
            "network": {"enableDNSHostnames": True},
            "replicatedJobs": [
                {
                    "name": REPLICATED_JOB,
                    "replicas": args.slices or 1,
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
