"""The Kubernetes layer on EKS: the charts it needs pinned, and what only AWS's facts can judge.

EKS runs the AWS Load Balancer Controller and the vendors' device-plugin charts from the stack's
profiles; a service exposed through the ALB gets one target group per backend, and the ALB spreads
a forward over at most five of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.aws.declaration import AwsPlatform
from accelplane.clouds.aws.rollout import CLOUDWATCH
from accelplane.config.kubernetes_section_checks import launcher_problems, sized_training_templates

# Chart versions the cluster-wide add-ons need, read from `kubernetes.addons_profile`.
ADDON_FIELDS = ("aws_load_balancer_controller", "kueue", "jobset", "kube_prometheus_stack")
# Chart versions (and images of node agents the program runs itself) each accelerator vendor's pools
# need from their own profile. The Neuron chart deploys no exporter: without neuron-monitor the
# Neuron PodMonitor and alerts would watch nothing, so its image is required like a chart version.
VENDOR_PLUGIN_FIELDS = {
    "nvidia": ("nvidia_device_plugin", "dcgm_exporter"),
    "aws": ("neuron_helm_chart", "neuron_monitor_image"),
}
# An ALB forward action spreads a rule's requests over at most five target groups
# (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-listeners.html#forward-actions).
ALB_TARGET_GROUPS_PER_ACTION = 5


def eks_problems(platform: AwsPlatform) -> Iterator[Issue]:
    layer = platform.kubernetes
    if layer is None:
        return
    for index, service in enumerate(layer.inference_services):
        path = ("kubernetes", "inference_services", index)
        if service.expose and service.backends is not None and len(service.backends) > ALB_TARGET_GROUPS_PER_ACTION:
            yield ((*path, "backends"), f"an ALB forwards one route to at most {ALB_TARGET_GROUPS_PER_ACTION} "
                   f"target groups, got {len(service.backends)} backends")
        if service.rollout is not None and service.rollout.metrics == CLOUDWATCH and not service.expose:
            yield ((*path, "rollout", "metrics"),
                   "cloudwatch reads the endpoint's target groups: the service must be exposed")
    for sized in sized_training_templates(platform, lambda pool: pool.scaling.max):
        if sized.nodes > sized.pool.scaling.max:
            yield (("kubernetes", "training_templates", sized.index, "nodes"),
                   f"the pool scales to {sized.pool.scaling.max} nodes, not {sized.nodes}")
        yield from launcher_problems(sized)
