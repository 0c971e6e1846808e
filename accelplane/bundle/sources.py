"""Every artifact source a stack declares, as the one resource AP-AIR-001 judges.

Plain data in (the `accelplane:platform` mapping), like the bare-metal host groups
(`accelplane.rules.bare_metal_groups`), so `check` and `diff` can build it from any revision.
Sources: bare-metal apt repositories, the Python index, the EFA installer URL (AWS's default when
an EFA group declares none), the chart repositories of the charts the stack installs
(`accelplane.k8s.helm_chart.CHARTS`, OCI charts by their reference) and every image by digest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.rules.hygiene.air_gap_sources import ARTIFACT_SOURCES
from accelplane.rules.view import Resource

# roles/comms_stack's default, also the inventory's (accelplane.nodes.inventory).
_DEFAULT_EFA_INSTALLER_URL = "https://efa-installer.amazonaws.com/aws-efa-installer-{version}.tar.gz"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _chart_sources(platform: Mapping[str, Any]) -> list[dict[str, str]]:
    from accelplane.k8s.helm_chart import CHARTS

    profiles = _mapping(platform.get("software_profiles"))
    used: list[str] = []
    for pool in platform.get("node_pools") or []:
        if isinstance(pool, Mapping) and isinstance(pool.get("software_profile"), str):
            used.append(pool["software_profile"])
    addons = _mapping(platform.get("kubernetes")).get("addons_profile")
    if isinstance(addons, str):
        used.append(addons)
    sources = []
    for name in dict.fromkeys(used):
        profile = _mapping(profiles.get(name))
        for key, chart in CHARTS.items():
            if profile.get(key) is not None:
                url = chart.repository or chart.chart
                sources.append({"field": f"software_profiles.{name}.{key}", "url": url, "kind": "chart"})
    return sources


def air_gap_resources(platform: Mapping[str, Any], *, stack: str, project: str) -> list[Resource]:
    """The stack's artifact sources when it declares `air_gap`; nothing otherwise."""
    from accelplane.bundle.locker import _images

    air_gap = platform.get("air_gap")
    if not isinstance(air_gap, Mapping):
        return []
    sources: list[dict[str, str]] = []
    bare_metal = _mapping(platform.get("bare_metal"))
    for index, repository in enumerate(bare_metal.get("repositories") or []):
        if isinstance(repository, Mapping) and isinstance(repository.get("uri"), str):
            sources.append({"field": f"bare_metal.repositories[{index}].uri", "url": repository["uri"], "kind": "apt"})
    python = _mapping(bare_metal.get("python"))
    find_links = python.get("find_links")
    if isinstance(find_links, str) and "://" in find_links:  # a plain path is the node's own directory
        sources.append({"field": "bare_metal.python.find_links", "url": find_links, "kind": "python"})
    if isinstance(python.get("index_url"), str):
        sources.append({"field": "bare_metal.python.index_url", "url": python["index_url"], "kind": "python"})
    elif bare_metal and not python.get("find_links"):
        sources.append({"field": "bare_metal.python.index_url", "url": "https://download.pytorch.org/whl/",
                        "kind": "python (default)"})
    efa_groups = [g for g in bare_metal.get("groups") or [] if isinstance(g, Mapping) and g.get("efa") is True]
    if efa_groups:
        url = python.get("efa_installer_url")
        sources.append({"field": "bare_metal.python.efa_installer_url",
                        "url": url if isinstance(url, str) else _DEFAULT_EFA_INSTALLER_URL,
                        "kind": "installer" if isinstance(url, str) else "installer (default)"})
    sources += _chart_sources(platform)
    for reference, where in _images(platform, ""):
        sources.append({"field": where, "url": reference, "kind": "image"})
    return [
        Resource(
            urn=f"urn:pulumi:{stack}::{project}::{ARTIFACT_SOURCES}::{stack}",
            type=ARTIFACT_SOURCES,
            name=stack,
            props={"mirror": air_gap.get("mirror_url"), "registry": air_gap.get("registry"), "sources": sources},
        )
    ]
