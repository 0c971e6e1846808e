"""The PromQL `accelplane cost idle` asks: each node's highest utilisation (percent) over a window,
per accelerator family, and which pool each node belongs to.

The per-node utilisation is the expression the monitoring stack's per-pool `AcceleratorIdle` alerts use
too (`accelplane.cost.idle_policy.IDLE_UTILISATION`): NVIDIA `DCGM_FI_DEV_GPU_UTIL` averaged over the
node's GPUs (dcgm-exporter names the node in `Hostname`), Neuron `neuroncore_utilization_ratio` x 100,
TPU `duty_cycle` (the PodMonitor copies the node name into `node`).

A node is idle when its peak over the window (`max_over_time` of the node's average in 5-minute
steps) stayed below its pool's threshold: a node busy for any 5-minute step is not idle.

Node -> pool: kube-state-metrics' `kube_node_labels` with the node's `accelplane.io/pool` label
(exported as `label_accelplane_io_pool`: the monitoring stack allow-lists it).
"""

from __future__ import annotations

from accelplane.cost.idle_policy import IDLE_UTILISATION

STEP = "5m"
POOL_LABEL = "label_accelplane_io_pool"


def peak_utilisation(family: str, hours: int) -> str:
    return f"max_over_time(({IDLE_UTILISATION[family]})[{hours}h:{STEP}])"


def node_pools() -> str:
    return f'max by (node, {POOL_LABEL}) (kube_node_labels{{{POOL_LABEL}!=""}})'
