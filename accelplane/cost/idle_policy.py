"""When a pool's accelerators count as idle: the pool's `idle:` or its environment's default.

Defaults: a development accelerator idle for 2 hours is forgotten; staging 8 hours; production 24
hours (a serving pool's quiet night is not idle). Below 10 % utilisation (GPU busy, NeuronCore
utilisation, TPU duty cycle) in each case.
"""

from __future__ import annotations

from accelplane.declaration import Environment, NodePool, Platform
from accelplane.declaration.cost import IdlePolicy

DEFAULTS = {
    Environment.dev: IdlePolicy(below_percent=10, for_hours=2),
    Environment.staging: IdlePolicy(below_percent=10, for_hours=8),
    Environment.prod: IdlePolicy(below_percent=10, for_hours=24),
}


def idle_policy(platform: Platform, pool: NodePool) -> IdlePolicy:
    return pool.idle or DEFAULTS[platform.environment]


def accelerator_family(accelerator: str | None) -> str | None:
    """The utilisation series family of an accelerator: nvidia (DCGM), neuron (neuron-monitor), tpu
    (GKE's TPU device plugin); None for CPU pools and accelerators without an exporter here."""
    if not accelerator:
        return None
    if accelerator.startswith("nvidia-"):
        return "nvidia"
    if accelerator.startswith("aws-"):
        return "neuron"
    if accelerator.startswith("google-tpu"):
        return "tpu"
    return None


# Per accelerator family: the utilisation (percent) per node, one expression for both readers: the
# monitoring stack's idle alerts (accelplane.k8s.monitoring) and `accelplane cost idle`'s report.
IDLE_UTILISATION = {
    "nvidia": 'avg by (node) (label_replace(DCGM_FI_DEV_GPU_UTIL, "node", "$1", "Hostname", "(.+)"))',
    "neuron": "avg by (node) (neuroncore_utilization_ratio * 100)",
    "tpu": 'avg by (node) (duty_cycle{make="cloud-tpu"})',
}
