"""Every artifact source a stack declares, as the one resource AP-AIR-001 judges.

Plain data in (the `accelplane:platform` mapping), like the bare-metal host groups
(`accelplane.rules.bare_metal_groups`), so `check` and `diff` can build it from any revision.
Sources: bare-metal apt repositories, the Python index, the EFA installer URL, the chart
repositories of the charts the stack installs and every image by digest — each as the nodes and the
Kubernetes layer will fetch it: what the declaration sets, as written (judged as such), and what it
leaves unset derived from the mirror by the same functions the inventory
(`accelplane.nodes.air_gap`) and the Kubernetes layer (`accelplane.k8s.mirror`) use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.rules.hygiene.air_gap_sources import ARTIFACT_SOURCES
from accelplane.rules.view import Resource


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _chart_sources(platform: Mapping[str, Any], mirror: str, registry: str | None) -> list[dict[str, str]]:
    from accelplane.k8s.helm_chart import CHARTS
    from accelplane.k8s.mirror import chart_source

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
        for key in CHARTS:
            if profile.get(key) is not None:
                chart = chart_source(key, mirror, registry)
                field = f"software_profiles.{name}.{key}"
                if chart.repository is not None:
                    sources.append({"field": field, "url": chart.repository, "kind": "chart"})
                else:  # an OCI chart is pulled from a registry, like an image
                    sources.append({"field": field, "url": chart.chart.removeprefix("oci://"), "kind": "image"})
    return sources


def air_gap_resources(platform: Mapping[str, Any], *, stack: str, project: str) -> list[Resource]:
    """The stack's artifact sources when it declares `air_gap`; nothing otherwise."""
    from accelplane.bundle.locker import _images
    from accelplane.k8s.mirror import mirrored_image
    from accelplane.nodes.air_gap import mirror_url_of, node_sources

    air_gap = platform.get("air_gap")
    mirror = mirror_url_of(platform)
    if not isinstance(air_gap, Mapping) or mirror is None:
        return []
    registry = air_gap.get("registry") if isinstance(air_gap.get("registry"), str) else None
    sources: list[dict[str, str]] = []
    bare_metal = _mapping(platform.get("bare_metal"))
    for index, repository in enumerate(bare_metal.get("repositories") or []):
        if isinstance(repository, Mapping) and isinstance(repository.get("uri"), str):
            sources.append({"field": f"bare_metal.repositories[{index}].uri", "url": repository["uri"], "kind": "apt"})
    declared = _mapping(bare_metal.get("python"))
    python = node_sources(mirror, declared)["accelplane_python"]  # what the inventory gives the roles
    find_links = python.get("find_links")
    if isinstance(find_links, str) and "://" in find_links:  # a plain path is the node's own directory
        sources.append({"field": "bare_metal.python.find_links", "url": find_links, "kind": "python"})
    if bare_metal and isinstance(python.get("index_url"), str):
        sources.append({"field": "bare_metal.python.index_url", "url": python["index_url"],
                        "kind": "python" if "index_url" in declared else "python (mirror)"})
    efa_groups = [g for g in bare_metal.get("groups") or [] if isinstance(g, Mapping) and g.get("efa") is True]
    if efa_groups:
        sources.append({"field": "bare_metal.python.efa_installer_url", "url": python["efa_installer_url"],
                        "kind": "installer" if "efa_installer_url" in declared else "installer (mirror)"})
    sources += _chart_sources(platform, mirror, registry)
    for reference, where in _images(platform, ""):
        # The Kubernetes layer pulls every digest-pinned image from the mirror registry when there is one.
        sources.append({"field": where, "url": mirrored_image(reference, registry), "kind": "image"})
    return [
        Resource(
            urn=f"urn:pulumi:{stack}::{project}::{ARTIFACT_SOURCES}::{stack}",
            type=ARTIFACT_SOURCES,
            name=stack,
            props={"mirror": air_gap.get("mirror_url"), "registry": air_gap.get("registry"), "sources": sources},
        )
    ]
