"""Checks about the stack as a whole: keys that belong to another vendor's accelerators, the
instance type carrying the accelerator, and glibc vs OS."""

from __future__ import annotations

import fnmatch

from accelplane.matrix.checks.context import DATA, Context
from accelplane.matrix.findings import Verdict
from accelplane.matrix.schema import AcceleratorFacts, Vendor
from accelplane.matrix.stack import VENDOR_KEYS
from accelplane.matrix.versions import parse_version

_VENDOR_NAMES = {
    "nvidia": "NVIDIA",
    "amd": "AMD",
    Vendor.NEURON: "AWS Neuron",
    "google": "Google TPU",
    "intel": "Intel Gaudi",
    "huawei": "Huawei Ascend",
}


def vendor_keys(ctx: Context) -> None:
    rule = "stack.vendor-keys"
    acc = ctx.stack.accelerator
    for vendor, keys in VENDOR_KEYS.items():
        if vendor == ctx.vendor:
            continue
        for key in sorted(keys & ctx.stack.raw.keys()):
            ctx.bad(
                rule,
                f"{key} applies to {_VENDOR_NAMES[vendor]} accelerators, but this stack is for {acc.name} "
                f"({_VENDOR_NAMES[ctx.vendor]}): the profile was written for another pool; fix: remove {key} "
                "or use "
                "the profile for the right pool",
                f"{DATA}/accelerators.yaml",
                (key, "accelerator"),
            )


def _carrier(acc: AcceleratorFacts, instance_type: str) -> str | None:
    """The source saying `instance_type` (an EC2 instance or Compute Engine machine type) carries
    `acc`, or None when no recorded type matches."""
    if any(fnmatch.fnmatchcase(instance_type, pattern) for pattern in acc.instance_types):
        return acc.instance_types_source or acc.source
    if any(fnmatch.fnmatchcase(instance_type, pattern) for pattern in acc.gce_machine_types):
        return acc.gce_machine_types_source or acc.source
    return None


def instance(ctx: Context) -> None:
    rule = "stack.instance"
    instance_type = ctx.stack.instance
    if instance_type is None:
        return
    acc = ctx.stack.accelerator
    fields = ("instance", "accelerator")
    source = _carrier(acc, instance_type)
    if source is not None:
        ctx.ok(rule, f"{instance_type} carries {acc.model}", source, fields)
        return
    for other in ctx.data.accelerators.values():
        source = _carrier(other, instance_type) if other.name != acc.name else None
        if source is not None:
            ctx.bad(
                rule,
                f"{instance_type} carries {other.name} ({other.model}), not {acc.name}; fix: accelerator: "
                f"{other.name}, or an instance type with {acc.model}",
                source,
                fields,
            )
            return
    ctx.unknown(
        rule,
        f"instance type {instance_type}: which accelerator it carries is not recorded",
        f"{DATA}/accelerators.yaml",
        fields,
    )


def glibc_os(ctx: Context) -> None:
    rule = "stack.glibc"
    glibc = ctx.stack.v("glibc")
    os_name = ctx.stack.os
    if glibc is None or os_name is None:
        return
    record = next((r for name, r in ctx.data.os_releases.items() if os_name.matches(name)), None)
    if record is None:
        return
    if not glibc.same_series(parse_version(record.glibc), 2):
        ctx.add(
            rule,
            Verdict.WARN,
            f"glibc {glibc} is not what {os_name} ships ({record.glibc}); the checks use "
            f"{glibc}; fix: correct glibc or os",
            record.source,
            ("glibc", "os"),
        )


CHECKS = (vendor_keys, instance, glibc_os)
