"""A Google Cloud project's capacity in the Google API fake, as `accelplane preflight` reads it:
the project, the region's quotas (`regions.get`), machine and accelerator types per zone, zonal
reservations, Cloud Quotas values and GKE's server config. Every resource is put in the shape of
the API's schema (the fake checks each answer against it); what a test changes is a plain dict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from accelplane.clouds.gcp import catalog
from accelplane.clouds.gcp.clients import API_VERSIONS, GcpClients
from accelplane.config.loader import StackConfig
from tests.support.google_api_fake import GoogleApiFake
from tests.support.google_api_fake.state import ApiError, Call, State

PROJECT_NUMBER = "271828182845"


@dataclass
class Capacity:
    fake: GoogleApiFake
    stack: StackConfig
    quotas: dict[str, tuple[float, float]] = field(default_factory=dict)  # metric -> (limit, usage)
    server_config: dict[str, Any] = field(default_factory=dict)

    @property
    def project(self) -> str:
        assert self.stack.platform.gcp is not None
        return self.stack.platform.gcp.project

    @property
    def region(self) -> str:
        return self.stack.platform.region

    def clients(self, **overrides: Any) -> GcpClients:
        from google.auth.credentials import AnonymousCredentials

        options: dict[str, Any] = {
            "credentials": AnonymousCredentials(),
            "endpoints": {service: self.fake.endpoint(service, version) for service, version in API_VERSIONS.items()
                          if service != "storage"},
            "sleep": lambda _seconds: None,
            "max_attempts": 3,
        }
        options.update(overrides)
        return GcpClients(self.project, self.region, **options)

    def set_quota(self, metric: str, limit: float, usage: float = 0.0) -> None:
        self.quotas[metric] = (limit, usage)
        self._put_region()

    def _put_region(self) -> None:
        self.fake.put("compute", "v1", f"projects/{self.project}/regions/{self.region}", {
            "kind": "compute#region", "name": self.region, "status": "UP",
            "quotas": [{"metric": metric, "limit": limit, "usage": usage}
                       for metric, (limit, usage) in sorted(self.quotas.items())],
        })

    def offer(self, zone: str, machine_type: str) -> None:
        self.fake.put("compute", "v1", f"projects/{self.project}/zones/{zone}/machineTypes/{machine_type}",
                      {"kind": "compute#machineType", "name": machine_type, "zone": zone})
        machine = catalog.machine_type(machine_type)
        if machine is not None and machine.kind == "gpu" and machine.accelerator:
            self.fake.put("compute", "v1", f"projects/{self.project}/zones/{zone}/acceleratorTypes/"
                          f"{machine.accelerator}", {"kind": "compute#acceleratorType", "name": machine.accelerator,
                                                     "zone": zone})

    def withdraw(self, zone: str, machine_type: str) -> None:
        key = self.fake.state.key(_api("compute", "v1"), f"projects/{self.project}/zones/{zone}/machineTypes/"
                                  f"{machine_type}")
        self.fake.state.resources.pop(key, None)

    def reserve(self, zone: str, name: str, machine_type: str, count: int, *, in_use: int = 0,
                status: str = "READY", delete_at: str | None = None) -> None:
        body: dict[str, Any] = {
            "kind": "compute#reservation", "name": name, "zone": zone, "status": status,
            "specificReservationRequired": True,
            "specificReservation": {"count": str(count), "inUseCount": str(in_use),
                                    "instanceProperties": {"machineType": machine_type}},
        }
        if delete_at:
            body["deleteAtTime"] = delete_at
        self.fake.put("compute", "v1", f"projects/{self.project}/zones/{zone}/reservations/{name}", body)

    def cloud_quota(self, quota_id: str, dimensions_infos: list[dict[str, Any]]) -> None:
        name = f"projects/{self.project}/locations/global/services/compute.googleapis.com/quotaInfos/{quota_id}"
        self.fake.put("cloudquotas", "v1", f"v1/{name}", {
            "name": name, "quotaId": quota_id, "service": "compute.googleapis.com",
            "containerType": "PROJECT", "dimensions": ["region"], "dimensionsInfos": dimensions_infos,
        })


def _api(name: str, version: str):
    from tools import google_discovery as discovery

    return discovery.load(name, version)


def provision(fake: GoogleApiFake, stack: StackConfig) -> Capacity:
    """A project where the stack fits: every pool's machine type offered in its zones, each
    reservation ready and large enough, quotas with room, the declared GKE version offered."""
    capacity = Capacity(fake, stack)
    fake.put("cloudresourcemanager", "v3", f"v3/projects/{capacity.project}",
             {"name": f"projects/{PROJECT_NUMBER}", "projectId": capacity.project, "state": "ACTIVE"})
    assert stack.platform.gcp is not None
    for pool in stack.platform.node_pools:
        for zone in pool.zones or stack.platform.gcp.zones:
            capacity.offer(zone, pool.instance_type)
        if pool.capacity.reservation:
            zone = (pool.zones or stack.platform.gcp.zones)[0]
            capacity.reserve(zone, pool.capacity.reservation, pool.instance_type, count=64)
    for metric in ("PREEMPTIBLE_NVIDIA_H100_GPUS", "TPU_LITE_PODSLICE_V5", "PREEMPTIBLE_TPU_LITE_PODSLICE_V5", "CPUS"):
        capacity.quotas[metric] = (512.0, 0.0)
    capacity._put_region()
    capacity.cloud_quota("GPUS-PER-GPU-FAMILY-per-project-region", [
        {"dimensions": {"region": capacity.region, "gpu_family": "NVIDIA_H100"}, "details": {"value": "64"},
         "applicableLocations": [capacity.region]},
        {"dimensions": {}, "details": {"value": "0"}},
    ])
    version = stack.platform.gcp.gke_version or f"{stack.platform.kubernetes_version}.5-gke.1162000"
    channel = stack.platform.gcp.release_channel.value if stack.platform.gcp.release_channel else "REGULAR"
    capacity.server_config = {
        "defaultClusterVersion": version,
        "validMasterVersions": [version],
        "validNodeVersions": [version],
        "channels": [{"channel": channel, "defaultVersion": version, "validVersions": [version]}],
    }

    def server_config(_state: State, call: Call) -> dict:
        if f"/locations/{capacity.region}/" not in call.path + "/":
            raise ApiError(404, f"no location in {call.path}")
        return capacity.server_config

    fake.handle("container.projects.locations.getServerConfig", server_config)
    return capacity
