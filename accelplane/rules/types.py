"""Pulumi type tokens the cloud-neutral rules look at (pulumi-kubernetes 4.x and accelplane's own
components), named once. A cloud's tokens live in its folder (`accelplane/clouds/<cloud>/resource_types.py`)."""

from __future__ import annotations

# Kubernetes (pulumi-kubernetes): where the pod spec sits in each workload kind.
K8S_POD = "kubernetes:core/v1:Pod"
K8S_DEPLOYMENT = "kubernetes:apps/v1:Deployment"
K8S_STATEFUL_SET = "kubernetes:apps/v1:StatefulSet"
K8S_DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
K8S_REPLICA_SET = "kubernetes:apps/v1:ReplicaSet"
K8S_JOB = "kubernetes:batch/v1:Job"
K8S_CRON_JOB = "kubernetes:batch/v1:CronJob"
K8S_POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    K8S_POD: ("spec",),
    K8S_DEPLOYMENT: ("spec", "template", "spec"),
    K8S_STATEFUL_SET: ("spec", "template", "spec"),
    K8S_DAEMON_SET: ("spec", "template", "spec"),
    K8S_REPLICA_SET: ("spec", "template", "spec"),
    K8S_JOB: ("spec", "template", "spec"),
    K8S_CRON_JOB: ("spec", "jobTemplate", "spec", "template", "spec"),
}
K8S_WORKLOAD_TYPES = frozenset(K8S_POD_SPEC_PATHS)
K8S_CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
K8S_SERVICE = "kubernetes:core/v1:Service"
K8S_LIMIT_RANGE = "kubernetes:core/v1:LimitRange"
K8S_RESOURCE_QUOTA = "kubernetes:core/v1:ResourceQuota"
K8S_HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
K8S_HPA_V1 = "kubernetes:autoscaling/v1:HorizontalPodAutoscaler"
# JobSet and Kueue objects (pulumi-kubernetes CustomResources: `kubernetes:<apiVersion>:<kind>`), in the
# API versions their current releases serve.
K8S_JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
KUEUE_VERSIONS = ("kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
KUEUE_CLUSTER_QUEUES = tuple(f"kubernetes:{v}:ClusterQueue" for v in KUEUE_VERSIONS)
KUEUE_LOCAL_QUEUES = tuple(f"kubernetes:{v}:LocalQueue" for v in KUEUE_VERSIONS)
KUEUE_RESOURCE_FLAVORS = tuple(f"kubernetes:{v}:ResourceFlavor" for v in KUEUE_VERSIONS)
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"

# Declared, not deployed by Pulumi: bare-metal host groups (Ansible), judged from the declaration.
BARE_METAL_GROUP = "accelplane:bare-metal:HostGroup"

# accelplane's own component resource for an inference service: its props are the service's backends
# (pool, weight, replica floor, the versions the image relies on) and rollout policy
# (`accelplane/k8s/service_props.py`), the same in the offline graph, a state or plan and CrossGuard.
INFERENCE_SERVICE = "accelplane:k8s:InferenceService"

# Gateway API objects (pulumi-kubernetes CustomResources: the token is `kubernetes:<apiVersion>:<kind>`).
K8S_GATEWAY = "kubernetes:gateway.networking.k8s.io/v1:Gateway"
K8S_HTTP_ROUTE = "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute"
