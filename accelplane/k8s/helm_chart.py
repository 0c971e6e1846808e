"""Where each third-party chart comes from; the version always comes from a software profile."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChartSource:
    chart: str
    repository: str | None  # None for OCI charts (the chart is the full oci:// reference)
    namespace: str


CHARTS: dict[str, ChartSource] = {
    "nvidia_device_plugin": ChartSource(
        "nvidia-device-plugin", "https://nvidia.github.io/k8s-device-plugin", "kube-system"
    ),
    "dcgm_exporter": ChartSource("dcgm-exporter", "https://nvidia.github.io/dcgm-exporter/helm-charts", "monitoring"),
    "neuron_helm_chart": ChartSource("oci://public.ecr.aws/neuron/neuron-helm-chart", None, "kube-system"),
    "efa_device_plugin": ChartSource("aws-efa-k8s-device-plugin", "https://aws.github.io/eks-charts", "kube-system"),
    "aws_load_balancer_controller": ChartSource(
        "aws-load-balancer-controller", "https://aws.github.io/eks-charts", "kube-system"
    ),
    "kueue": ChartSource("oci://registry.k8s.io/kueue/charts/kueue", None, "kueue-system"),
    "jobset": ChartSource("oci://registry.k8s.io/jobset/charts/jobset", None, "jobset-system"),
    "kube_prometheus_stack": ChartSource(
        "kube-prometheus-stack", "https://prometheus-community.github.io/helm-charts", "monitoring"
    ),
}
