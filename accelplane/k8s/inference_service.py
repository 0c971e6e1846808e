"""`InferenceService`: one declared service: Deployment, Service, HPA, PDB, its service account and
what attaches it to the endpoint: on EKS a TargetGroupBinding that registers its pods in the cloud
layer's ALB target group (`target_group_backend.py`), on GKE an HTTPRoute to the platform's Gateway
with its health check and Cloud Armor policies (`gateway_backend.py`).

Pods request exactly their accelerators (requests = limits), run only on the declared pool
(node selector, tolerations of the pool's taints), spread across zones, probe the health path,
and reach the cloud only through their workload's identity (the service account's annotations on
EKS; on GKE the IAM bindings name the Kubernetes service account itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.core.v1 import ContainerArgsDict, ProbeArgsDict, TolerationArgsDict
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict

from accelplane.config.model import InferenceService as ServiceSpec
from accelplane.k8s.gateway_backend import GatewayBackend, attach_to_gateway
from accelplane.k8s.priority_classes import INFERENCE_PRIORITY
from accelplane.k8s.target_group_backend import TargetGroupBackend, bind_target_group


def _http_probe(path: str, failure_threshold: int) -> ProbeArgsDict:
    return {
        "http_get": {"path": path, "port": "http"},
        "period_seconds": 10,
        "timeout_seconds": 5,
        "failure_threshold": failure_threshold,
    }


@dataclass(frozen=True)
class InferenceServiceArgs:
    spec: ServiceSpec
    namespace: str
    service_account: str
    account_annotations: Mapping[str, pulumi.Input[str]]  # workload identity (EKS: the IAM role ARN)
    accelerator_resource: str
    accelerators: int  # per replica
    pool_labels: Mapping[str, str]
    tolerations: Sequence[TolerationArgsDict]
    health_path: str
    backend: TargetGroupBackend | GatewayBackend | None  # what exposes the service; None: not exposed
    depends_on: Sequence[pulumi.Resource]


class InferenceService(pulumi.ComponentResource):
    def __init__(self, name: str, args: InferenceServiceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:InferenceService", name, None, opts)
        spec = args.spec
        child = pulumi.ResourceOptions(parent=self)
        labels = {"app.kubernetes.io/name": spec.name, "app.kubernetes.io/part-of": "accelplane"}
        metadata: ObjectMetaArgsDict = {"name": spec.name, "namespace": args.namespace, "labels": labels}
        account: ObjectMetaArgsDict = {"name": args.service_account, "namespace": args.namespace}
        if args.account_annotations:
            account["annotations"] = dict(args.account_annotations)
        k8s.core.v1.ServiceAccount(f"{name}-sa", metadata=account, automount_service_account_token=True, opts=child)
        accelerators = str(args.accelerators)
        container: ContainerArgsDict = {
            "name": "server",
            "image": spec.image,
            "ports": [{"name": "http", "container_port": spec.port, "protocol": "TCP"}],
            "resources": {
                "requests": {"cpu": spec.cpu, "memory": spec.memory, args.accelerator_resource: accelerators},
                "limits": {"memory": spec.memory, args.accelerator_resource: accelerators},
            },
            # Model loading can take minutes: the startup probe holds liveness off until then.
            "startup_probe": _http_probe(args.health_path, failure_threshold=90),
            "readiness_probe": _http_probe(args.health_path, failure_threshold=3),
            "liveness_probe": _http_probe(args.health_path, failure_threshold=6),
            "security_context": {
                "allow_privilege_escalation": False,
                "run_as_non_root": True,
                "capabilities": {"drop": ["ALL"]},
                "seccomp_profile": {"type": "RuntimeDefault"},
            },
        }
        k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata=metadata,
            spec={
                "replicas": spec.autoscaling.min_replicas,
                "selector": {"match_labels": labels},
                "strategy": {"type": "RollingUpdate", "rolling_update": {"max_unavailable": 0, "max_surge": 1}},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "service_account_name": args.service_account,
                        "priority_class_name": INFERENCE_PRIORITY,
                        "node_selector": dict(args.pool_labels),
                        "tolerations": list(args.tolerations),
                        "topology_spread_constraints": [
                            {
                                "max_skew": 1,
                                "topology_key": "topology.kubernetes.io/zone",
                                "when_unsatisfiable": "ScheduleAnyway",
                                "label_selector": {"match_labels": labels},
                            }
                        ],
                        "termination_grace_period_seconds": 60,
                        "containers": [container],
                    },
                },
            },
            # The HPA owns the replica count once running.
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=list(args.depends_on), ignore_changes=["spec.replicas"]
            ),
        )
        k8s.core.v1.Service(
            f"{name}-service",
            metadata=metadata,
            spec={
                "type": "ClusterIP",
                "selector": labels,
                "ports": [{"name": "http", "port": spec.port, "target_port": "http", "protocol": "TCP"}],
            },
            opts=child,
        )
        k8s.autoscaling.v2.HorizontalPodAutoscaler(
            f"{name}-hpa",
            metadata=metadata,
            spec={
                "scale_target_ref": {"api_version": "apps/v1", "kind": "Deployment", "name": spec.name},
                "min_replicas": spec.autoscaling.min_replicas,
                "max_replicas": spec.autoscaling.max_replicas,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "target": {
                                "type": "Utilization",
                                "average_utilization": spec.autoscaling.target_cpu_utilization,
                            },
                        },
                    }
                ],
            },
            opts=child,
        )
        k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb",
            metadata=metadata,
            spec={"max_unavailable": 1, "selector": {"match_labels": labels}},
            opts=child,
        )
        if spec.expose and isinstance(args.backend, TargetGroupBackend):
            bind_target_group(name, args.backend, metadata, spec.name, spec.port, self, args.depends_on)
        elif spec.expose and isinstance(args.backend, GatewayBackend):
            attach_to_gateway(name, args.backend, metadata, spec.name, spec.port, self, args.depends_on)
        self.register_outputs({})
