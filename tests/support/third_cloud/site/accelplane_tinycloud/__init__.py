"""tinycloud: the smallest cloud accelplane can be given, shipped as a distribution of its own.

It implements `CloudSupport` for a stack of machine pools: its declaration (`declaration.py`), the
one resource it declares (`tiny:compute/machinePool:MachinePool`), the mocks the offline engine
answers with, and says which live commands it has not (`not_yet`); its prices are the optional
pricing facet (`pricing.py`, its price table `prices.yaml`). Nothing of accelplane names it:
`cloud: tiny` finds it through its entry points.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pulumi

from accelplane.cloud_support import Capability, CloudSupport, DeclarationPath, Issue
from accelplane.declaration import Platform
from accelplane_tinycloud.declaration import TinyPlatform

POOL_TYPE = "tiny:compute/machinePool:MachinePool"
MACHINE_TYPES = {"tiny.l4x1": "nvidia-l4", "tiny.cpu4": None}  # machine type -> the accelerator it carries


class _Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None


class TinySupport(CloudSupport):
    name = "tiny"
    platform_model = TinyPlatform
    not_yet = {
        Capability.verify: "tinycloud has no API to read",
        Capability.live_weights: "tinycloud has no load balancer",
        Capability.cloud_metrics: "tinycloud has no metrics",
    }

    def declaration_problems(self, platform: Platform) -> Iterable[Issue]:
        for index, pool in enumerate(platform.node_pools):
            if pool.instance_type not in MACHINE_TYPES:
                yield (("node_pools", index, "instance_type"),
                       f"no tinycloud machine type {pool.instance_type!r}; known: {', '.join(MACHINE_TYPES)}")
            elif (carried := MACHINE_TYPES[pool.instance_type]) != pool.accelerator:
                yield ("node_pools", index, "accelerator"), f"{pool.instance_type} carries {carried or 'none'}"

    def addon_fields(self) -> tuple[str, ...]:
        return ()

    def vendor_plugin_fields(self, vendor: str) -> tuple[str, ...]:
        return ()

    def declaration_paths(self, platform: Platform) -> dict[tuple[str, str], DeclarationPath]:
        return {(POOL_TYPE, f"{platform.name}-{pool.name}"): ("node_pools", index)
                for index, pool in enumerate(platform.node_pools)}

    def build(self, platform: Platform) -> dict[str, object]:
        tiny = platform
        assert isinstance(tiny, TinyPlatform)
        for pool in tiny.node_pools:
            pulumi.CustomResource(POOL_TYPE, f"{tiny.name}-{pool.name}", {
                "region": tiny.region, "datacenter": tiny.datacenter, "rack": pool.rack, "pool": pool.name,
                "machineType": pool.instance_type, "min": pool.scaling.min, "desired": pool.scaling.desired,
                "max": pool.scaling.max, "labels": dict(tiny.resource_tags),
            })
        return {"pools": [pool.name for pool in tiny.node_pools]}

    def offline_mocks(self, platform: Platform) -> pulumi.runtime.Mocks:
        return _Mocks()


SUPPORT = TinySupport()
