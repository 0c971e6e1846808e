"""`AcceleratorMonitoring`: the Prometheus operator stack, accelerator scraping and alert rules.

DCGM exporter metrics are scraped through the ServiceMonitor its chart creates; Neuron metrics
through a PodMonitor on the neuron-monitor pods (`NeuronMonitor`, whose labels and port name it
reuses). Alerts cover the failure modes that cost the most accelerator hours: XID errors, memory
exhaustion, idle accelerators, Neuron hardware errors, inference p99 latency and nodes that are not
ready.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from accelplane.k8s import neuron_monitor
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
                    "namespaceSelector": {"matchNames": [neuron_monitor.NAMESPACE]},
                    "selector": {"matchLabels": dict(neuron_monitor.POD_LABELS)},
                    "podMetricsEndpoints": [{"port": neuron_monitor.METRICS_PORT_NAME, "interval": "15s"}],
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
