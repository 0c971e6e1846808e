"""`AcceleratorMonitoring`: the Prometheus operator stack, accelerator scraping and alert rules.

DCGM exporter metrics are scraped through the ServiceMonitor its chart creates; Neuron metrics
through a PodMonitor on the neuron-monitor pods (`NeuronMonitor`, whose labels and port name it
reuses). Alerts cover the failure modes that cost the most accelerator hours: XID errors, memory
exhaustion, idle accelerators, Neuron hardware errors, inference p99 latency and nodes that are not
ready.

TPU metrics on GKE come from GKE's own TPU device plugin: its pods (kube-system, label
`k8s-app: tpu-device-plugin`) serve Prometheus text on port 2112 at `/metrics` on every TPU node
(https://cloud.google.com/kubernetes-engine/docs/how-to/machine-learning/inference/autoscaling-tpu,
"TPU metrics": Google's own PodMonitoring selects those pods and that port). Per chip (labels
`accelerator_id`, `make="cloud-tpu"`, `model` such as `tpu-v5p-slice`, `tpu_topology`, and the
workload's `namespace`/`pod`/`container`, which the scrape keeps as `exported_*`):
`duty_cycle` (% of time the TensorCores were busy), `tensorcore_utilization` (%),
`memory_used` and `memory_total` (HBM bytes) and `memory_bandwidth_utilization` (%); sample output in
https://github.com/ray-project/ray/blob/dc74d6f7b3e9bed79f844657e4a9e5f963d837b9/python/ray/dashboard/modules/reporter/tests/test_reporter.py
(Ray's dashboard reads the same endpoint). A PodMonitor scrapes them by port number (`portNumber`,
prometheus-operator 0.79 and later: the plugin's container port has no name to select) and copies
the node name onto every series. The TPU alerts: low duty cycle, HBM nearly full, and a TPU node not
ready; kube-state-metrics exports the nodes' TPU labels for the last one (`kube_node_labels`).

Inference servers: a PodMonitor scrapes `/metrics` on the `http` port of every inference pod (the
pods labelled `accelplane.io/backend`, in the inference workloads' namespaces) and copies the pod
labels `accelplane.io/service` and `accelplane.io/backend` onto every series as `service` and
`backend`, so the request histogram (`http_request_duration_seconds_bucket{service, backend}`) is per
backend: the InferenceP99LatencyHigh alert is per service and backend, and `accelplane rollout`
compares the canary's and the baseline's series. Prometheus exposes a pod label `a.b/c` to
relabelling as `__meta_kubernetes_pod_label_a_b_c`
(https://prometheus.io/docs/prometheus/latest/configuration/configuration/#pod). The namespaces'
default-deny policies admit the monitoring namespace on every port (`workload_namespace.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelplane.cost.idle_policy import IDLE_UTILISATION
from accelplane.k8s import neuron_monitor
from accelplane.k8s.inference_service import BACKEND_LABEL, PART_OF, SERVICE_LABEL
from accelplane.k8s.pinned_release import pinned_release
from accelplane.k8s.workload_namespace import MONITORING_NAMESPACE
from accelplane.node_labels import POOL_LABEL

ALERTS = [
    (
        "AcceleratorXidError",
        "max by (Hostname, gpu) (DCGM_FI_DEV_XID_ERRORS) > 0",
        "1m",
        "critical",
        "GPU {{ $labels.gpu }} on {{ $labels.Hostname }} reported XID {{ $value }}; drain the node and check dmesg.",
    ),
    (
        "AcceleratorMemoryNearlyFull",
        "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE) > 0.95",
        "10m",
        "warning",
        "GPU memory above 95% on {{ $labels.Hostname }}: out-of-memory failures are likely.",
    ),
    (
        "AcceleratorLowUtilization",
        "avg by (Hostname) (DCGM_FI_DEV_GPU_UTIL) < 20",
        "30m",
        "warning",
        "GPUs on {{ $labels.Hostname }} under 20% busy for 30 minutes: input pipeline or communication bound.",
    ),
    (
        # neuron-monitor-prometheus.py names the counter hardware_ecc_events_total (no neuron_ prefix),
        # one series per device and event_type (mem_/sram_ecc_corrected, mem_/sram_ecc_uncorrected);
        # only uncorrected events mean a failing device. Sources: the exported names,
        # https://github.com/aws/amazon-cloudwatch-agent/blob/c95b4fcdfbb3d43a5ca6e98b1b2495f20e26ea12/translator/translate/otel/processor/metricstransformprocessor/translator.go
        # and the neuron_hw_counters group,
        # https://awsdocs-neuron.readthedocs-hosted.com/en/latest/tools/neuron-sys-tools/neuron-monitor-user-guide.html
        "NeuronHardwareError",
        'increase(hardware_ecc_events_total{event_type=~".*_uncorrected"}[5m]) > 0',
        "1m",
        "critical",
        "Neuron device {{ $labels.neuron_device_index }} on {{ $labels.instance_id }} reported uncorrected "
        "ECC events; replace the instance.",
    ),
    (
        # Per backend: a slow canary at 5% of the traffic would vanish in the service's overall p99.
        # `backend` is set only on the series the inference PodMonitor scrapes, in whichever namespaces
        # the inference workloads run.
        "InferenceP99LatencyHigh",
        "histogram_quantile(0.99, sum by (le, service, backend) (rate(http_request_duration_seconds_bucket"
        '{backend!=""}[5m]))) > 2',
        "10m",
        "warning",
        "p99 latency of {{ $labels.service }} (backend {{ $labels.backend }}) above 2 s for 10 minutes.",
    ),
    (
        "NodeNotReady",
        'kube_node_status_condition{condition="Ready",status="true"} == 0',
        "5m",
        "critical",
        "Node {{ $labels.node }} has not been Ready for 5 minutes.",
    ),
]

# The alerts that need no accelerator exporter: they hold on every cloud.
GENERIC_ALERTS = [alert for alert in ALERTS if alert[0] in ("InferenceP99LatencyHigh", "NodeNotReady")]

TPU_DEVICE_PLUGIN_NAMESPACE = "kube-system"
TPU_DEVICE_PLUGIN_LABELS = {"k8s-app": "tpu-device-plugin"}
TPU_METRICS_PORT = 2112
# GKE's TPU node labels, exported by kube-state-metrics as label_cloud_google_com_gke_tpu_*.
TPU_NODE_LABELS = ("cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-tpu-topology")
_TPU = 'make="cloud-tpu"'
TPU_ALERTS = [
    (
        "TpuLowDutyCycle",
        f"avg by (node, model, tpu_topology) (duty_cycle{{{_TPU}}}) < 20",
        "30m",
        "warning",
        "TPU chips on {{ $labels.node }} ({{ $labels.model }} {{ $labels.tpu_topology }}) busy under 20% for 30 "
        "minutes: input pipeline, host or data-centre network bound.",
    ),
    (
        "TpuHbmNearlyFull",
        f"max by (node, accelerator_id) (memory_used{{{_TPU}}} / memory_total{{{_TPU}}}) > 0.95",
        "10m",
        "warning",
        "HBM of TPU chip {{ $labels.accelerator_id }} on {{ $labels.node }} above 95%: out-of-memory failures "
        "are likely.",
    ),
    (
        "TpuNodeNotReady",
        'kube_node_status_condition{condition="Ready",status="true"} == 0 '
        "and on (node) kube_node_labels{label_cloud_google_com_gke_tpu_accelerator!=\"\"}",
        "5m",
        "critical",
        "TPU node {{ $labels.node }} has not been Ready for 5 minutes: a multi-host slice stops as a whole "
        "when one of its VMs does.",
    ),
]


# Which node a series is on and which pool that node is in: kube-state-metrics exports the node's
# `accelplane.io/pool` label (allow-listed below) as `label_accelplane_io_pool`.
POOL_NODE_LABEL = POOL_LABEL


@dataclass(frozen=True)
class IdlePool:
    """A pool's idle threshold: its accelerators below `below_percent` for `for_hours` (docs/cost.md)."""

    pool: str
    family: str  # nvidia | neuron | tpu
    below_percent: float
    for_hours: int


def idle_alerts(pools: Sequence[IdlePool], families: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
    """One `AcceleratorIdle` rule per pool whose exporter this Prometheus scrapes (label `pool`)."""
    alerts = []
    for pool in pools:
        if pool.family not in families:
            continue
        # One alert name for every pool (an alert name is a metric name: no '-'); the pool is a label.
        expr = (f'label_replace({IDLE_UTILISATION[pool.family]} < {pool.below_percent:g} and on (node) '
                f'kube_node_labels{{label_accelplane_io_pool="{pool.pool}"}}, "pool", "{pool.pool}", "", "")')
        alerts.append((
            "AcceleratorIdle", expr, f"{pool.for_hours}h", "warning",
            f"Accelerators of pool {pool.pool} on {{{{ $labels.node }}}} under {pool.below_percent:g}% busy for "
            f"{pool.for_hours} hours: release the node or scale the pool down (`accelplane cost idle`).",
        ))
    return alerts


@dataclass(frozen=True)
class AcceleratorMonitoringArgs:
    version: str
    neuron: bool
    tpu: bool = False
    # The DCGM and Neuron alerts watch the exporters the EKS layer runs; on GKE nothing runs them.
    device_exporter_alerts: bool = True
    inference_namespaces: Sequence[str] = ()  # where inference services run (their pods are scraped)
    idle_pools: Sequence[IdlePool] = ()


def _copy_label(source: str, target: str) -> dict[str, Any]:
    return {"action": "replace", "sourceLabels": [source], "targetLabel": target}


def _pod_monitor(
    resource_name: str,
    name: str,
    namespaces: Sequence[str],
    selector: dict[str, Any],
    endpoint: dict[str, Any],
    opts: pulumi.ResourceOptions,
) -> None:
    """A PodMonitor in the monitoring namespace scraping one endpoint of the selected pods every 15 s."""
    k8s.apiextensions.CustomResource(
        resource_name,
        api_version="monitoring.coreos.com/v1",
        kind="PodMonitor",
        metadata={"name": name, "namespace": MONITORING_NAMESPACE},
        spec={
            "namespaceSelector": {"matchNames": list(namespaces)},
            "selector": selector,
            "podMetricsEndpoints": [{**endpoint, "interval": "15s"}],
        },
        opts=opts,
    )


def _pod_label_meta(label: str) -> str:
    """The service-discovery label Prometheus gives a pod label (non-alphanumerics become `_`)."""
    return "__meta_kubernetes_pod_label_" + "".join(c if c.isalnum() else "_" for c in label)


class AcceleratorMonitoring(pulumi.ComponentResource):
    release: pulumi.Resource

    def __init__(self, name: str, args: AcceleratorMonitoringArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:AcceleratorMonitoring", name, None, opts)
        values: dict[str, object] = {
            # Pick up every ServiceMonitor, PodMonitor and PrometheusRule, not only this release's.
            "prometheus": {
                "prometheusSpec": {
                    "serviceMonitorSelectorNilUsesHelmValues": False,
                    "podMonitorSelectorNilUsesHelmValues": False,
                    "ruleSelectorNilUsesHelmValues": False,
                    "retention": "15d",
                }
            },
            "grafana": {"enabled": False},
        }
        node_labels = [POOL_NODE_LABEL, *(TPU_NODE_LABELS if args.tpu else ())]
        values["kube-state-metrics"] = {"metricLabelsAllowlist": [f"nodes=[{','.join(node_labels)}]"]}
        self.release = pinned_release(
            f"{name}-prometheus", "kube_prometheus_stack", args.version, values, pulumi.ResourceOptions(parent=self)
        )
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        if args.neuron:
            _pod_monitor(
                f"{name}-neuron-monitor",
                "neuron-monitor",
                [neuron_monitor.NAMESPACE],
                {"matchLabels": dict(neuron_monitor.POD_LABELS)},
                {"port": neuron_monitor.METRICS_PORT_NAME,
                 "relabelings": [_copy_label("__meta_kubernetes_pod_node_name", "node")]},
                after,
            )
        if args.tpu:
            _pod_monitor(
                f"{name}-tpu-device-plugin",
                "tpu-device-plugin",
                [TPU_DEVICE_PLUGIN_NAMESPACE],
                {"matchLabels": dict(TPU_DEVICE_PLUGIN_LABELS)},
                {
                    "portNumber": TPU_METRICS_PORT,
                    "path": "/metrics",
                    "relabelings": [_copy_label("__meta_kubernetes_pod_node_name", "node")],
                },
                after,
            )
        if args.inference_namespaces:
            _pod_monitor(
                f"{name}-inference",
                "accelplane-inference",
                sorted(set(args.inference_namespaces)),
                {"matchLabels": dict(PART_OF), "matchExpressions": [{"key": BACKEND_LABEL, "operator": "Exists"}]},
                {
                    "port": "http",
                    "path": "/metrics",
                    "relabelings": [
                        _copy_label(_pod_label_meta(SERVICE_LABEL), "service"),
                        _copy_label(_pod_label_meta(BACKEND_LABEL), "backend"),
                    ],
                },
                after,
            )
        alerts = list(ALERTS if args.device_exporter_alerts else GENERIC_ALERTS)
        if args.tpu:
            alerts += TPU_ALERTS
        # Idle alerts for the families this Prometheus scrapes: DCGM and neuron-monitor where the EKS layer
        # runs them, the TPU device plugin on GKE (GKE's managed DCGM goes to Managed Service for Prometheus).
        scraped = [*(["nvidia"] if args.device_exporter_alerts else []), *(["neuron"] if args.neuron else []),
                   *(["tpu"] if args.tpu else [])]
        alerts += idle_alerts(args.idle_pools, scraped)
        k8s.apiextensions.CustomResource(
            f"{name}-alerts",
            api_version="monitoring.coreos.com/v1",
            kind="PrometheusRule",
            metadata={"name": "accelplane-accelerators", "namespace": MONITORING_NAMESPACE},
            spec={
                "groups": [
                    {
                        "name": "accelplane.accelerators",
                        "rules": [
                            {
                                "alert": alert,
                                "expr": expr,
                                "for": duration,
                                "labels": {"severity": severity},
                                "annotations": {"summary": summary},
                            }
                            for alert, expr, duration, severity, summary in alerts
                        ],
                    }
                ]
            },
            opts=after,
        )
        self.register_outputs({})
