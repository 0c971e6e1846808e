"""`AcceleratorEnablement`: device plugins (and metrics) for the vendors whose pools exist.

NVIDIA: the EKS AL2023 NVIDIA AMI ships the driver and container toolkit, so the GPU Operator's
driver management is not needed; the device plugin and DCGM exporter run as charts. AWS Neuron:
the neuron chart's device plugin and scheduler extension. EFA: the EFA device plugin on EFA pools.
Each plugin runs only on its pools (node selector on `accelplane.io/accelerator` or
`accelplane.io/efa`) and tolerates their taints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_kubernetes.core.v1 import TolerationArgsDict

from accelplane.k8s.pinned_release import pinned_release
from accelplane.matrix.schema import Vendor


@dataclass(frozen=True)
class VendorPools:
    vendor: str
    accelerators: Sequence[str]  # values of the accelplane.io/accelerator label
    tolerations: Sequence[TolerationArgsDict]
    versions: Mapping[str, str]  # chart key -> version, from the pools' software profile


@dataclass(frozen=True)
class AcceleratorEnablementArgs:
    vendors: Sequence[VendorPools]
    efa_version: str | None
    efa_tolerations: Sequence[TolerationArgsDict]


def _affinity(accelerators: Sequence[str]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "accelplane.io/accelerator", "operator": "In", "values": sorted(accelerators)}
                        ]
                    }
                ]
            }
        }
    }


class AcceleratorEnablement(pulumi.ComponentResource):
    releases: list[pulumi.Resource]

    def __init__(self, name: str, args: AcceleratorEnablementArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:k8s:AcceleratorEnablement", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.releases = []
        for pools in args.vendors:
            common = {"affinity": _affinity(pools.accelerators), "tolerations": list(pools.tolerations)}
            if pools.vendor == "nvidia":
                self.releases.append(
                    pinned_release(
                        f"{name}-nvidia-device-plugin",
                        "nvidia_device_plugin",
                        pools.versions["nvidia_device_plugin"],
                        {**common, "gfd": {"enabled": False}, "nfd": {"enabled": False}},
                        child,
                    )
                )
                self.releases.append(
                    pinned_release(
                        f"{name}-dcgm-exporter",
                        "dcgm_exporter",
                        pools.versions["dcgm_exporter"],
                        {**common, "serviceMonitor": {"enabled": True, "interval": "15s"}},
                        child,
                    )
                )
            elif pools.vendor == Vendor.NEURON:
                self.releases.append(
                    pinned_release(
                        f"{name}-neuron",
                        "neuron_helm_chart",
                        pools.versions["neuron_helm_chart"],
                        {
                            "devicePlugin": {"enabled": True, **common},
                            "scheduler": {"enabled": True},
                            "npd": {"enabled": False},
                        },
                        child,
                    )
                )
        if args.efa_version:
            self.releases.append(
                pinned_release(
                    f"{name}-efa-device-plugin",
                    "efa_device_plugin",
                    args.efa_version,
                    {
                        "nodeSelector": {"accelplane.io/efa": "true"},
                        "tolerations": list(args.efa_tolerations),
                    },
                    child,
                )
            )
        self.register_outputs({})
