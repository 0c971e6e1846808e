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
