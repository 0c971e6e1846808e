"""`NeuronMonitor`: the neuron-monitor exporter on every Neuron node, for Prometheus to scrape.

The neuron-helm-chart deploys the device plugin and scheduler extension but no exporter, so this
component runs AWS's neuron-monitor container as a DaemonSet in kube-system: `neuron-monitor` piped
into `neuron-monitor-prometheus.py`, serving Prometheus text on port 8000 (container port `metrics`,
selected by the PodMonitor of `AcceleratorMonitoring`). It exports `neuroncore_utilization_ratio`,
`neuron_runtime_memory_used_bytes`, `execution_errors_total`, `execution_latency_seconds`,
`hardware_ecc_events_total` (label `event_type`), `neuron_hardware_info` and per-instance labels
(`instance_id`, `instance_type`, ...).

Sources (the container's command, port, resources and security context follow AWS's manifest):
- https://github.com/aws-neuron/aws-neuron-sdk/blob/9f6387f4c941e8843923b7eb005c788c6eb558f8/src/k8/k8s-neuron-monitor-daemonset.yml
  (image public.ecr.aws/neuron/neuron-monitor:1.3.0, `/opt/bin/entrypoint.sh --port 8000
  --neuron-monitor-config /opt/aws/neuron/bin/neuron-monitor.conf`, GOMEMLIMIT 160MiB, limits 500m
  CPU / 256Mi, `privileged: true`); the tutorial that ships it:
  https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/tutorials/k8s-neuron-monitor.html
- https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-sys-tools/neuron-monitor-user-guide.html
  (`neuron-monitor | neuron-monitor-prometheus.py --port <port>`, default port 8000; the
  `neuron_hw_counters` group reports mem/sram ECC corrected and uncorrected events per device)
- https://github.com/aws/amazon-cloudwatch-agent/blob/c95b4fcdfbb3d43a5ca6e98b1b2495f20e26ea12/translator/translate/otel/processor/metricstransformprocessor/translator.go
  (the Prometheus names neuron-monitor exports, `hardware_ecc_events_total` among them)
- https://github.com/aws-observability/helm-charts/blob/0168249ef2ea099b00f3048270e759f702e58060/charts/amazon-cloudwatch-observability/templates/linux/neuron-monitor-daemonset.yaml
  (CloudWatch Container Insights runs the same container, also `privileged: true`, port named `metrics`)

Least privilege: AWS runs the container privileged in both manifests and mounts no host path: a
privileged container sees the node's /dev/neuron* devices without the device plugin allocating them,
while requesting them (`aws.amazon.com/neuron`) would take them away from training pods. Not yet
verified on a Neuron node here that less would do. Privileged is the only privilege it gets:
no hostPath, no host network/PID/IPC, no Kubernetes API token. AP-K8S-001 exempts it from the
privileged rule only, and by identity (`accelplane/rules/kubernetes/platform_components.py`): a
DaemonSet named `neuron-monitor` in kube-system whose every container runs a `neuron-monitor` image
pinned by digest; keep NAMESPACE, NAME and the image's repository name in step with that table (a
test compares them). Requests equal limits (Guaranteed QoS), probes watch the
metrics port, and `system-node-critical` keeps it from being the first pod evicted on a busy node:
losing it silently hides the ECC alert of a failing device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.core.v1 import ContainerArgsDict, ProbeArgsDict, TolerationArgsDict

from accelplane.node_labels import LABEL_PREFIX

NAMESPACE = "kube-system"
NAME = "neuron-monitor"
# Selected by the PodMonitor in `monitoring.py`: keep both in one place.
POD_LABELS = {"app.kubernetes.io/name": NAME}
METRICS_PORT_NAME = "metrics"
METRICS_PORT = 8000  # neuron-monitor-prometheus.py's default (--port), as in AWS's manifest
COMPONENT = "device-monitor"  # app.kubernetes.io/component: describes it; exempts nothing
# Built-in class, allowed in kube-system only; the project's own classes are for workloads.
PRIORITY_CLASS = "system-node-critical"
_RESOURCES = {"cpu": "500m", "memory": "256Mi"}  # AWS's limits; requests raised to equal them


def _probe(failure_threshold: int) -> ProbeArgsDict:
    return {
        "http_get": {"path": "/metrics", "port": METRICS_PORT_NAME},
        "initial_delay_seconds": 10,
        "period_seconds": 30,
        "timeout_seconds": 10,
        "failure_threshold": failure_threshold,
    }


@dataclass(frozen=True)
class NeuronMonitorArgs:
    image: str  # by digest, from the Neuron pools' software profile (`neuron_monitor_image`)
    accelerators: Sequence[str]  # values of the accelplane.io/accelerator label on Neuron pools
    tolerations: Sequence[TolerationArgsDict]  # of those pools' taints


class NeuronMonitor(pulumi.ComponentResource):
    daemon_set: k8s.apps.v1.DaemonSet

    def __init__(self, name: str, args: NeuronMonitorArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:NeuronMonitor", name, None, opts)
        labels = {**POD_LABELS, "app.kubernetes.io/component": COMPONENT, "app.kubernetes.io/part-of": "accelplane"}
        account = k8s.core.v1.ServiceAccount(
            f"{name}-sa",
            metadata={"name": NAME, "namespace": NAMESPACE, "labels": labels},
            # The exporter never calls the Kubernetes API (its k8s-info companion stays off).
            automount_service_account_token=False,
            opts=pulumi.ResourceOptions(parent=self),
        )
        container: ContainerArgsDict = {
            "name": NAME,
            "image": args.image,
            "command": ["/opt/bin/entrypoint.sh"],
            "args": [
                "--port",
                str(METRICS_PORT),
                "--neuron-monitor-config",
                "/opt/aws/neuron/bin/neuron-monitor.conf",
            ],
            "ports": [{"name": METRICS_PORT_NAME, "container_port": METRICS_PORT, "protocol": "TCP"}],
            # The Go runtime of neuron-monitor stays under the memory limit (AWS's value).
            "env": [{"name": "GOMEMLIMIT", "value": "160MiB"}],
            "resources": {"requests": dict(_RESOURCES), "limits": dict(_RESOURCES)},
            "readiness_probe": _probe(failure_threshold=3),
            "liveness_probe": _probe(failure_threshold=5),
            # See the module docstring: the one privilege it needs, granted to nothing else.
            "security_context": {"privileged": True},
        }
        self.daemon_set = k8s.apps.v1.DaemonSet(
            f"{name}-daemonset",
            metadata={"name": NAME, "namespace": NAMESPACE, "labels": labels},
            spec={
                "selector": {"match_labels": dict(POD_LABELS)},
                "update_strategy": {"type": "RollingUpdate", "rolling_update": {"max_unavailable": 1}},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "service_account_name": NAME,
                        "automount_service_account_token": False,
                        "priority_class_name": PRIORITY_CLASS,
                        # The same nodes as the Neuron device plugin: the Neuron pools, and only them.
                        "affinity": {
                            "node_affinity": {
                                "required_during_scheduling_ignored_during_execution": {
                                    "node_selector_terms": [
                                        {
                                            "match_expressions": [
                                                {
                                                    "key": f"{LABEL_PREFIX}/accelerator",
                                                    "operator": "In",
                                                    "values": sorted(args.accelerators),
                                                }
                                            ]
                                        }
                                    ]
                                }
                            }
                        },
                        "tolerations": list(args.tolerations),
                        "termination_grace_period_seconds": 10,
                        "containers": [container],
                    },
                },
            },
            opts=pulumi.ResourceOptions(parent=self, depends_on=[account]),
        )
        self.register_outputs({})
