"""Checks of a validated declaration that relate fields to each other, for either cloud.

Pydantic checks each field's shape; these checks relate fields to each other (a pool names a
profile that exists, a workload a bucket that is declared); the cloud's own facts are checked by
the cloud's `checks` (`CloudSupport.declaration_problems`), chosen by `cloud`. Each problem carries
the field path it is about, so the loader can point at the line.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue, cloud_support
from accelplane.config.kubernetes_section_checks import kubernetes_problems
from accelplane.declaration import Platform
from accelplane.matrix import accelerators
from accelplane.matrix.schema import Vendor
from accelplane.suggest import did_you_mean


def problems(platform: Platform) -> list[Issue]:
    """All cross-field problems: the cloud's, then those both clouds share."""
    return [
        *cloud_support(platform.cloud).declaration_problems(platform),
        *_pools(platform),
        *_buckets(platform),
        *_workloads_and_secrets(platform),
        *_bare_metal(platform),
        *kubernetes_problems(platform),
        *_cost(platform),
    ]


def _cost(platform: Platform) -> Iterator[Issue]:
    # Which discounts and budget settings a cloud has is the cloud's check (its declaration_problems).
    for index, pool in enumerate(platform.node_pools):
        fixed_slice = pool.sized_in_slices() and pool.scaling.min == pool.scaling.max
        consistent = pool.scaling.min <= pool.scaling.desired <= pool.scaling.max  # else reported above
        if pool.expiry is not None and pool.scaling.min != 0 and not fixed_slice and consistent:
            yield (("node_pools", index, "scaling", "min"),
                   "a pool with an expiry (a development or experiment pool) must be able to scale to zero: min 0")


def _pools(platform: Platform) -> Iterator[Issue]:

    known_accelerators = accelerators()
    names: set[str] = set()
    for index, pool in enumerate(platform.node_pools):
        base: tuple[str | int, ...] = ("node_pools", index)
        if pool.name in names:
            yield (*base, "name"), f"duplicate node pool name {pool.name!r}"
        names.add(pool.name)
        if pool.scaling.min > pool.scaling.desired or pool.scaling.desired > pool.scaling.max:
            yield (
                (*base, "scaling"),
                f"expected min <= desired <= max, got min={pool.scaling.min} desired={pool.scaling.desired} "
                f"max={pool.scaling.max}",
            )
        if pool.software_profile and pool.software_profile not in platform.software_profiles:
            yield (
                (*base, "software_profile"),
                f"no software profile named {pool.software_profile!r}; declared: "
                + ", ".join(sorted(platform.software_profiles)),
            )
        if pool.accelerator is not None:
            if pool.accelerator not in known_accelerators:
                yield (
                    (*base, "accelerator"),
                    f"unknown accelerator {pool.accelerator!r}{did_you_mean(pool.accelerator, known_accelerators)} "
                    "(`accelplane matrix show --accelerator NAME` describes one; the JSON Schema lists all)",
                )
            if pool.software_profile is None:
                yield (*base, "software_profile"), "an accelerator pool needs a software profile"
    for index, pool in enumerate(platform.node_pools):
        if pool.group and not any(p.group == pool.group and p is not pool for p in platform.node_pools):
            yield ("node_pools", index, "group"), f"group {pool.group!r} has only this pool"


def _buckets(platform: Platform) -> Iterator[Issue]:
    roles: set[str] = set()
    for index, bucket in enumerate(platform.buckets):
        if bucket.role in roles:
            yield ("buckets", index, "role"), f"duplicate bucket role {bucket.role.value!r}"
        roles.add(bucket.role)
        for rule_index, rule in enumerate(bucket.lifecycle):
            if rule.noncurrent_expire_days and not bucket.versioning:
                yield (
                    ("buckets", index, "lifecycle", rule_index, "noncurrent_expire_days"),
                    "noncurrent-version expiry needs versioning: true",
                )


def _workloads_and_secrets(platform: Platform) -> Iterator[Issue]:
    roles = {bucket.role for bucket in platform.buckets}
    secrets = {secret.name for secret in platform.secrets}
    seen: set[str] = set()
    for index, workload in enumerate(platform.workloads):
        if workload.name in seen:
            yield ("workloads", index, "name"), f"duplicate workload name {workload.name!r}"
        seen.add(workload.name)
        for grant_index, grant in enumerate(workload.buckets):
            if grant.role not in roles:
                yield (
                    ("workloads", index, "buckets", grant_index, "role"),
                    f"no bucket with role {grant.role.value!r} is declared",
                )
        for secret_index, secret in enumerate(workload.secrets):
            if secret not in secrets:
                yield ("workloads", index, "secrets", secret_index), f"no secret named {secret!r} is declared"
    seen = set()
    for index, secret in enumerate(platform.secrets):
        if secret.name in seen:
            yield ("secrets", index, "name"), f"duplicate secret name {secret.name!r}"
        seen.add(secret.name)


# Vendors whose host groups may declare `efa` (the EFA installer: comms_stack, vendor_aws.yml).
_EFA_VENDORS = ("nvidia", Vendor.NEURON)
# Profile fields the bare-metal roles install, per accelerator vendor (roles/node_software).
_BARE_METAL_VERSIONS: dict[str, tuple[str, ...]] = {
    "nvidia": ("driver", "kernel_module", "cuda", "nccl", "container_toolkit", "containerd", "torch"),
    "amd": ("amdgpu_kmd", "rocm", "nccl", "containerd", "torch"),
    # Intel Gaudi (roles/habana_gaudi): the habanalabs-* packages and habana-torch-plugin carry
    # the release and its build number; torch is Intel's Gaudi build of that version.
    "intel": ("gaudi_sw", "gaudi_build", "containerd", "torch"),
    # AWS Neuron on self-managed hosts (roles/aws_neuron): aws-neuronx-dkms is the matrix's driver of
    # neuron_sdk; the runtime, collectives, tools and compiler versions of the release are the profile's.
    Vendor.NEURON: (
        "neuron_sdk", "neuron_runtime", "neuron_collectives", "neuron_tools", "neuronx_cc", "torch_neuronx", "torch",
        "containerd",
    ),
    # Huawei Ascend (roles/ascend_npu): the driver, firmware and CANN (toolkit and kernels) installers,
    # torch_npu with the torch it pairs with.
    "huawei": ("ascend_driver", "ascend_firmware", "cann", "torch_npu", "torch", "containerd"),
}


_VENDOR_NAMES = {
    "nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel Gaudi", "huawei": "Huawei Ascend", Vendor.NEURON: "AWS Neuron"
}


def _supported_vendors() -> str:
    names = [_VENDOR_NAMES.get(vendor, vendor) for vendor in _BARE_METAL_VERSIONS]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _bare_metal(platform: Platform) -> Iterator[Issue]:
    """Host groups name a known accelerator the roles support and a profile with every version they install."""

    bare_metal = platform.bare_metal
    if bare_metal is None:
        return
    known = accelerators()
    groups: set[str] = set()
    hosts: dict[str, str] = {}
    for index, group in enumerate(bare_metal.groups):
        base: tuple[str | int, ...] = ("bare_metal", "groups", index)
        if group.name in groups:
            yield (*base, "name"), f"duplicate host group name {group.name!r}"
        groups.add(group.name)
        for host_index, host in enumerate(group.hosts):
            if host.name in hosts:
                yield (*base, "hosts", host_index, "name"), f"host {host.name!r} is also in group {hosts[host.name]!r}"
            hosts.setdefault(host.name, group.name)
        facts = known.get(group.accelerator)
        if facts is None:
            yield ((*base, "accelerator"), f"unknown accelerator {group.accelerator!r}"
                   f"{did_you_mean(group.accelerator, known)} (the JSON Schema lists all)")
            continue
        vendor = facts.vendor.value
        required = _BARE_METAL_VERSIONS.get(vendor)
        if required is None:
            yield (
                (*base, "accelerator"),
                f"bare-metal roles support {_supported_vendors()} accelerators, not {group.accelerator} ({vendor})",
            )
            continue
        profile = platform.software_profiles.get(group.software_profile)
        if profile is None:
            yield (
                (*base, "software_profile"),
                f"no software profile {group.software_profile!r}; declared: "
                + ", ".join(sorted(platform.software_profiles)),
            )
            continue
        needed = [*required]
        if facts.nvswitch:
            needed.append("fabric_manager")
        if group.efa:
            # NVIDIA hosts check the installer's aws-ofi-nccl; Neuron hosts use their collectives' own
            # OFI plugin (roles/node_software/tasks/vendor_aws.yml).
            needed += ["efa_installer", "aws_ofi_nccl"] if vendor == "nvidia" else ["efa_installer"]
        if group.validation.nccl_tests and vendor == "nvidia":
            needed.append("nccl_tests")  # the release the nodes build for the all-reduce validation
        versions = profile.versions()
        missing = [name for name in needed if name not in versions]
        if missing:
            yield (
                (*base, "software_profile"),
                f"profile {group.software_profile!r} lacks {', '.join(missing)}, needed on {group.accelerator} hosts",
            )
        if group.efa and vendor not in _EFA_VENDORS:
            yield (*base, "efa"), "EFA is installed for NVIDIA groups (with aws-ofi-nccl) and AWS Neuron groups only"
