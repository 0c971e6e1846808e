"""The NVIDIA driver a GKE GPU pool runs: decided by GKE, not by the profile, unless the pool turns
GKE's installation off.

GKE documents three settings of a node pool's driver installation (container.v1
GPUDriverInstallationConfig.gpuDriverVersion; "Run GPUs in GKE Standard node pools", section
"Manually install NVIDIA GPU drivers" and "Install drivers automatically"): DEFAULT and LATEST
install the driver version GKE pins for the node's GKE version, INSTALLATION_DISABLED installs
none (the platform's own DaemonSet does). With DEFAULT or LATEST a `driver` typed in the pool's
profile is not what the nodes run: the `versions.accelplane.io/driver` label and the matrix's
verdict would describe a driver nobody installs. So it is refused (a profile on EKS typing a driver
its AMI does not ship is refused the same way); with `gpu_driver: disabled` the typed driver is the
one the platform installs and is judged as typed. A pool whose driver GKE decides carries no driver
in its matrix stack: the matrix reports the driver as unknown (never a silent pass; under a strict
matrix it blocks). accelplane holds no sourced table of which driver each GKE version installs.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.cloud_support import Issue
from accelplane.clouds.gcp import catalog as gcp_catalog
from accelplane.clouds.gcp.declaration import GcpPlatform, GpuDriver

SOURCE = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#installing_drivers"


def gke_installs_driver(setting: GpuDriver | None) -> bool:
    """Whether GKE installs the driver (DEFAULT when the pool says nothing, as the program sets it)."""
    return (setting or GpuDriver.default) is not GpuDriver.disabled


def gke_driver_problems(platform: GcpPlatform) -> Iterator[Issue]:
    """A profile typing a driver for a GPU pool whose driver GKE installs (one problem per profile)."""
    named: set[str] = set()
    for pool in platform.node_pools:
        machine = gcp_catalog.machine_type(pool.instance_type)
        profile = platform.pool_profile(pool)
        if machine is None or machine.kind != "gpu" or profile is None or pool.software_profile is None:
            continue
        if profile.driver is None or not gke_installs_driver(pool.gpu_driver) or pool.software_profile in named:
            continue
        named.add(pool.software_profile)
        setting = (pool.gpu_driver or GpuDriver.default).value
        version = platform.gcp.gke_version if platform.gcp is not None and platform.gcp.gke_version else None
        node = f"GKE {version}" if version else "the cluster's GKE version"
        yield (("software_profiles", pool.software_profile, "driver"),
               f"driver {profile.driver} is not what pool {pool.name} runs: with gpu_driver: {setting} GKE installs "
               f"the driver {node} pins as {setting} ({SOURCE}), whatever the profile says. Remove `driver` (the "
               "matrix then reports the driver as unknown), or set gpu_driver: disabled on the pool and install "
               f"{profile.driver} yourself (a driver DaemonSet)")
