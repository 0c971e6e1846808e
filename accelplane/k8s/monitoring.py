"""`AcceleratorMonitoring`: the Prometheus operator stack, accelerator scraping and alert rules.

DCGM exporter metrics are scraped through the ServiceMonitor its chart creates; Neuron metrics
through a PodMonitor on the neuron-monitor pods. Alerts cover the failure modes that cost the most
accelerator hours: XID errors, memory exhaustion, idle accelerators, Neuron hardware errors,
inference p99 latency and nodes that are not ready.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.k8s.pinned_release import pinned_release
from accelplane.k8s.workload_namespace import MONITORING_NAMESPACE

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
        "NeuronHardwareError",
        "increase(neuron_hardware_ecc_events_total[5m]) > 0",
        "1m",
        "critical",
        "Neuron device ECC events on {{ $labels.instance_id }}; replace the instance.",
    ),
    (
        "InferenceP99LatencyHigh",
        "histogram_quantile(0.99, sum by (le, service) (rate(http_request_duration_seconds_bucket"
        '{namespace="inference"}[5m]))) > 2',
        "10m",
        "warning",
        "p99 latency of {{ $labels.service }} above 2 s for 10 minutes.",
    ),
    (
        "NodeNotReady",
        'kube_node_status_condition{condition="Ready",status="true"} == 0',
        "5m",
        "critical",
        "Node {{ $labels.node }} has not been Ready for 5 minutes.",
    ),
]


@dataclass(frozen=True)
class AcceleratorMonitoringArgs:
    version: str
    neuron: bool


class AcceleratorMonitoring(pulumi.ComponentResource):
    release: pulumi.Resource

    def __init__(self, name: str, args: AcceleratorMonitoringArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:AcceleratorMonitoring", name, None, opts)
        self.release = pinned_release(
            f"{name}-prometheus",
            "kube_prometheus_stack",
            args.version,
            {
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
            },
            pulumi.ResourceOptions(parent=self),
        )
        after = pulumi.ResourceOptions(parent=self, depends_on=[self.release])
        if args.neuron:
            k8s.apiextensions.CustomResource(
                f"{name}-neuron-monitor",
                api_version="monitoring.coreos.com/v1",
                kind="PodMonitor",
                metadata={"name": "neuron-monitor", "namespace": MONITORING_NAMESPACE},
                spec={
                    "namespaceSelector": {"matchNames": ["kube-system"]},
                    "selector": {"matchLabels": {"app.kubernetes.io/name": "neuron-monitor"}},
                    "podMetricsEndpoints": [{"port": "metrics", "interval": "15s"}],
                },
                opts=after,
            )
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
                            for alert, expr, duration, severity, summary in ALERTS
                        ],
                    }
                ]
            },
            opts=after,
        )
        self.register_outputs({})
