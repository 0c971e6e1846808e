"""The PromQL `accelplane cost idle` asks: each node's highest utilisation (percent) over a window,
per accelerator family, and which pool each node belongs to.

- NVIDIA GPUs: `DCGM_FI_DEV_GPU_UTIL` (percent busy per GPU) from dcgm-exporter (EKS: the chart's
  ServiceMonitor; GKE: GKE's managed DCGM metrics), averaged over the node's GPUs. dcgm-exporter names
  the node in `Hostname`; a series that carries `node` keeps it.
- AWS Neuron: `neuroncore_utilization_ratio` (0-1 per NeuronCore, neuron-monitor) x 100.
- Google TPUs: `duty_cycle` (percent per chip, GKE's TPU device plugin; the PodMonitor copies the
  node name into `node`).

A node is idle when its peak over the window (`max_over_time` of the node's average, 5-minute steps)
stayed below its pool's threshold: a node busy for any 5-minute step is not idle.

Node -> pool: kube-state-metrics' `kube_node_labels` with the node's `accelplane.io/pool` label
(exported as `label_accelplane_io_pool`: the monitoring stack allow-lists it).
"""

from __future__ import annotations

STEP = "5m"
FAMILIES = {
    "nvidia": 'label_replace(DCGM_FI_DEV_GPU_UTIL, "node", "$1", "Hostname", "(.+)")',
    "neuron": "neuroncore_utilization_ratio * 100",
    "tpu": 'duty_cycle{make="cloud-tpu"}',
}
POOL_LABEL = "label_accelplane_io_pool"


def peak_utilisation(family: str, hours: int) -> str:
    return f"max_over_time((avg by (node) ({FAMILIES[family]}))[{hours}h:{STEP}])"


def node_pools() -> str:
    return f'max by (node, {POOL_LABEL}) (kube_node_labels{{{POOL_LABEL}!=""}})'
