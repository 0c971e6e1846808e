"""`InferenceService`: one declared service, its service account and, per backend, a Deployment, Service,
HPA and PDB on that backend's pool, and what attaches the backend to the endpoint: on EKS a
TargetGroupBinding that registers its pods in the backend's own ALB target group (the ALB's weighted
forward splits the requests), on GKE the service's HTTPRoute with one weighted backendRef per backend
and each backend's health check and Cloud Armor policies (`service_backend.ServiceBackend`, one per
cloud).

Pods request exactly their accelerators (requests = limits), run only on their backend's pool (node
selector, tolerations of the pool's taints), spread across zones, probe the health path, and reach
the cloud only through their workload's identity (the service account's annotations on EKS; on GKE
the IAM bindings name the Kubernetes service account itself).

Names and labels. A backend's objects are named `service.object_name(backend)`: the inline backend
keeps the service's own name and logical names, so existing stacks replace nothing. Pods carry
`accelplane.io/service` and `accelplane.io/backend` (the PodMonitor turns them into the `service` and
`backend` labels of every scraped series, which the rollout gates read). Selectors select on
`app.kubernetes.io/name` (the backend's object name, unique per backend in the namespace),
`app.kubernetes.io/part-of` and both of those labels, so two backends of one service never select
each other's pods. The backend keeping the service's name keeps the selector it always had (name and
part-of, which no other backend's pods match): a Deployment's selector is immutable, so changing it
would replace a running Deployment, and an object with a fixed name is deleted before it is
re-created.

A backend at `min_replicas: 0` runs no pods and has no HPA (an HPA cannot scale to zero without the
HPAScaleToZero feature gate, https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/):
its Deployment declares 0 replicas. With an HPA, the HPA owns the replica count (`ignore_changes`).

The component's props are `rollout.declared.service_props`: the backends' pools, accelerators,
weights, replica floors, versions and the rollout policy, which the rules and `diff` read from any
graph without the declaration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apps.v1 import DeploymentSpecArgsDict
from pulumi_kubernetes.autoscaling.v2 import HorizontalPodAutoscalerSpecArgsDict
from pulumi_kubernetes.core.v1 import ContainerArgsDict, ProbeArgsDict, TolerationArgsDict
from pulumi_kubernetes.meta.v1 import ObjectMetaArgsDict

from accelplane.declaration import Backend, RunAs
from accelplane.declaration import InferenceService as ServiceSpec
from accelplane.k8s.mirror import current_image
from accelplane.k8s.priority_classes import INFERENCE_PRIORITY
from accelplane.k8s.service_backend import Attachment, BackendRef, ServiceBackend

SERVICE_LABEL = "accelplane.io/service"
BACKEND_LABEL = "accelplane.io/backend"
PART_OF = {"app.kubernetes.io/part-of": "accelplane"}


def _http_probe(path: str, failure_threshold: int) -> ProbeArgsDict:
    return {
        "http_get": {"path": path, "port": "http"},
        "period_seconds": 10,
        "timeout_seconds": 5,
        "failure_threshold": failure_threshold,
    }


def backend_logical_name(component: str, service: ServiceSpec, backend: Backend) -> str:
    """Prefix of a backend's Pulumi logical names: the component's own name for the backend that keeps
    the service's name (as before backends existed), else `<component>-<backend>`."""
    return component if service.object_name(backend) == service.name else f"{component}-{backend.name}"


@dataclass(frozen=True)
class BackendPlacement:
    """Where one backend runs: its pool's extended resource, how many per replica, selector and taints."""

    backend: Backend
    accelerator_resource: str
    accelerators: int  # per replica
    pool_labels: Mapping[str, str]
    tolerations: Sequence[TolerationArgsDict]


@dataclass(frozen=True)
class InferenceServiceArgs:
    spec: ServiceSpec
    props: Mapping[str, Any]  # rollout.declared.service_props: the component's recorded inputs
    namespace: str
    service_account: str
    account_annotations: Mapping[str, pulumi.Input[str]]  # workload identity (EKS: the IAM role ARN)
    backends: Sequence[BackendPlacement]
    health_path: str
    exposure: ServiceBackend | None  # what exposes the service; None: not exposed
    depends_on: Sequence[pulumi.Resource]
    run_as: RunAs = field(default_factory=RunAs)


class InferenceService(pulumi.ComponentResource):
    def __init__(self, name: str, args: InferenceServiceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:InferenceService", name, dict(args.props), opts)
        spec = args.spec
        account: ObjectMetaArgsDict = {"name": args.service_account, "namespace": args.namespace}
        if args.account_annotations:
            account["annotations"] = dict(args.account_annotations)
        # No API token in the pods: a model server never calls the Kubernetes API, and the cloud identity
        # needs none (IRSA mounts its own projected web-identity token; GKE Workload Identity answers on
        # the metadata server).
        k8s.core.v1.ServiceAccount(
            f"{name}-sa", metadata=account, automount_service_account_token=False,
            opts=pulumi.ResourceOptions(parent=self),
        )
        refs = [self._backend(name, args, placement) for placement in args.backends]
        if spec.expose and args.exposure is not None:
            metadata: ObjectMetaArgsDict = {
                "name": spec.name,
                "namespace": args.namespace,
                "labels": {"app.kubernetes.io/name": spec.name, **PART_OF, SERVICE_LABEL: spec.name},
            }
            args.exposure.attach_service(Attachment(name, metadata, self, args.depends_on), spec.path_prefix, refs)
        # The same props as outputs: a CrossGuard stack policy sees a resource's outputs only, and the
        # rollout rules (AP-RO-*) read the backends from them.
        self.register_outputs(dict(args.props))

    def _backend(self, component: str, args: InferenceServiceArgs, placement: BackendPlacement) -> BackendRef:
        spec, backend = args.spec, placement.backend
        name = backend_logical_name(component, spec, backend)
        object_name = spec.object_name(backend)
        child = pulumi.ResourceOptions(parent=self)
        identity = {SERVICE_LABEL: spec.name, BACKEND_LABEL: backend.name}
        labels = {"app.kubernetes.io/name": object_name, **PART_OF, **identity}
        selector = {"app.kubernetes.io/name": object_name, **PART_OF}
        if object_name != spec.name:
            selector.update(identity)
        metadata: ObjectMetaArgsDict = {"name": object_name, "namespace": args.namespace, "labels": labels}
        k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata=metadata,
            spec=_deployment_spec(args, placement, labels, selector),
            # The HPA owns the replica count once running; without one (min_replicas 0) the declared
            # count is the truth and Pulumi keeps it.
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=list(args.depends_on),
                ignore_changes=["spec.replicas"] if backend.autoscaling.min_replicas > 0 else None,
            ),
        )
        k8s.core.v1.Service(
            f"{name}-service",
            metadata=metadata,
            spec={
                "type": "ClusterIP",
                "selector": selector,
                "ports": [{"name": "http", "port": spec.port, "target_port": "http", "protocol": "TCP"}],
            },
            opts=child,
        )
        if backend.autoscaling.min_replicas > 0:
            k8s.autoscaling.v2.HorizontalPodAutoscaler(
                f"{name}-hpa", metadata=metadata, spec=_autoscaler_spec(backend, object_name), opts=child
            )
        k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb",
            metadata=metadata,
            spec={"max_unavailable": 1, "selector": {"match_labels": selector}},
            opts=child,
        )
        ref = BackendRef(spec.name, backend.name, object_name, spec.port, backend.weight)
        if spec.expose and args.exposure is not None:
            args.exposure.attach_backend(Attachment(name, metadata, self, args.depends_on), ref)
        return ref


# Writable places of a read-only root file system: scratch, compile caches (Neuron's default
# /var/tmp/neuron-compile-cache; XLA, Triton and Hugging Face under $HOME/.cache), and the shared memory
# PyTorch's workers use. Each is an emptyDir: gone with the pod, owned by the pod's fs_group.
SCRATCH_VOLUMES = (("tmp", "/tmp"), ("var-tmp", "/var/tmp"), ("cache", "/cache"))
SHM_SIZE = "2Gi"
# The pod stays in the endpoint's backends until the load balancer has deregistered it (ALB
# deregistration delay, GKE connection draining: 30 s) plus a margin; the grace period covers both.
PRE_STOP_SECONDS = 35
TERMINATION_GRACE_SECONDS = 90


def _container(args: InferenceServiceArgs, placement: BackendPlacement) -> ContainerArgsDict:
    """The model server: its accelerators requested exactly (requests = limits), probed on its health
    path, unprivileged, on a read-only root file system. No CPU limit: CFS quota throttles a server's
    request threads in bursts (docs/endpoint-resilience.md), the request is what the scheduler needs."""
    backend, spec = placement.backend, args.spec
    accelerators = str(placement.accelerators)
    resource = placement.accelerator_resource
    return {
        "name": "server",
        "image": current_image(backend.image),
        "ports": [{"name": "http", "container_port": spec.port, "protocol": "TCP"}],
        "resources": {
            "requests": {"cpu": backend.cpu, "memory": backend.memory, resource: accelerators},
            "limits": {"memory": backend.memory, resource: accelerators},
        },
        # Model loading can take minutes: the startup probe holds liveness off until then.
        "startup_probe": _http_probe(args.health_path, failure_threshold=90),
        "readiness_probe": _http_probe(args.health_path, failure_threshold=3),
        "liveness_probe": _http_probe(args.health_path, failure_threshold=6),
        "env": [
            {"name": "HOME", "value": "/cache"},
            {"name": "XDG_CACHE_HOME", "value": "/cache/.cache"},
            {"name": "HF_HOME", "value": "/cache/huggingface"},
        ],
        "volume_mounts": [
            *({"name": name, "mount_path": path} for name, path in SCRATCH_VOLUMES),
            {"name": "shm", "mount_path": "/dev/shm"},
        ],
        "lifecycle": {"pre_stop": {"sleep": {"seconds": PRE_STOP_SECONDS}}},
        "security_context": {
            "allow_privilege_escalation": False,
            "read_only_root_filesystem": True,
            "run_as_non_root": True,
            "run_as_user": args.run_as.user,
            "run_as_group": args.run_as.group,
            "capabilities": {"drop": ["ALL"]},
            "seccomp_profile": {"type": "RuntimeDefault"},
        },
    }


def _deployment_spec(
    args: InferenceServiceArgs, placement: BackendPlacement, labels: dict[str, str], selector: dict[str, str]
) -> DeploymentSpecArgsDict:
    """One backend's pods on its own pool, spread over zones, rolled one surge pod at a time."""
    return {
        "replicas": placement.backend.autoscaling.min_replicas,
        "selector": {"match_labels": selector},
        "strategy": {"type": "RollingUpdate", "rolling_update": {"max_unavailable": 0, "max_surge": 1}},
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "service_account_name": args.service_account,
                "priority_class_name": INFERENCE_PRIORITY,
                "node_selector": dict(placement.pool_labels),
                "tolerations": list(placement.tolerations),
                "topology_spread_constraints": [
                    {
                        "max_skew": 1,
                        "topology_key": "topology.kubernetes.io/zone",
                        "when_unsatisfiable": "ScheduleAnyway",
                        "label_selector": {"match_labels": selector},
                    }
                ],
                "termination_grace_period_seconds": TERMINATION_GRACE_SECONDS,
                "automount_service_account_token": False,
                "security_context": {
                    "run_as_non_root": True,
                    "run_as_user": args.run_as.user,
                    "run_as_group": args.run_as.group,
                    "fs_group": args.run_as.fs_group,
                    "seccomp_profile": {"type": "RuntimeDefault"},
                },
                "volumes": [
                    *({"name": name, "empty_dir": {}} for name, _ in SCRATCH_VOLUMES),
                    {"name": "shm", "empty_dir": {"medium": "Memory", "size_limit": SHM_SIZE}},
                ],
                "containers": [_container(args, placement)],
            },
        },
    }


def _autoscaler_spec(backend: Backend, object_name: str) -> HorizontalPodAutoscalerSpecArgsDict:
    scaling = backend.autoscaling
    return {
        "scale_target_ref": {"api_version": "apps/v1", "kind": "Deployment", "name": object_name},
        "min_replicas": scaling.min_replicas,
        "max_replicas": scaling.max_replicas,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "average_utilization": scaling.target_cpu_utilization},
                },
            }
        ],
    }
