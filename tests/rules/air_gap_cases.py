"""AP-AIR-001's fixtures: an air-gapped stack's effective artifact sources (accelplane.bundle.sources):
what the inventory and the Kubernetes layer give the nodes and the cluster."""

from __future__ import annotations

from tests.rules.cases import Case, res

MIRROR = "https://mirror.internal/accelplane"
IMAGE = "registry.internal:5000/neuron/neuron-monitor@sha256:" + "a" * 64


def _sources(*sources: tuple[str, str, str], registry: str | None = "registry.internal:5000") -> dict:
    return {
        "mirror": MIRROR,
        "registry": registry,
        "sources": [{"field": field, "url": url, "kind": kind} for field, url, kind in sources],
    }


AIR_GAP_CASES: dict[str, Case] = {
    "AP-AIR-001": Case(
        passing=[res("accelplane:bundle:ArtifactSources", "prod", _sources(
            ("accelplane_repositories[0].uri", f"{MIRROR}/apt", "apt"),
            ("accelplane_python.index_url", f"{MIRROR}/python/simple/", "python"),
            ("software_profiles.h100.neuron_monitor_image", IMAGE, "image"),
        ))],
        # A public chart repository left in place; the mirror's name as a prefix of another host.
        failing=[res("accelplane:bundle:ArtifactSources", "prod", _sources(
            ("accelplane_repositories[0].uri", f"{MIRROR}/apt", "apt"),
            ("software_profiles.h100.nvidia_device_plugin", "https://nvidia.github.io/k8s-device-plugin", "chart"),
            ("accelplane_python.index_url", f"{MIRROR}-public/simple/", "python"),
        ))],
        expect="software_profiles.h100.nvidia_device_plugin: chart source https://nvidia.github.io/k8s-device-plugin "
        "is not the mirror",
        target="prod",
    ),
}
