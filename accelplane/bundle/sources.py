"""Every artifact source an air-gapped stack's nodes and cluster use, as the one resource AP-AIR-001 judges.

Plain data in (the `accelplane:platform` mapping), like the bare-metal host groups
(`accelplane.rules.bare_metal_groups`), so `check` and `diff` can build it from any revision.
Sources: the apt repositories, Python index, EFA installer and nccl-tests source the inventory gives
the nodes, the chart repositories of the charts the stack installs and every image by digest — each
as it is effectively fetched, derived by the same functions the inventory (`accelplane.nodes.air_gap`)
and the Kubernetes layer (`accelplane.k8s.mirror`) use. The declared upstream sources
(`bare_metal.repositories`, `bare_metal.python`) are what `bundle lock` reads on the connected side;
the nodes never see them, so they are not judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelplane.bundle.locker import _images
from accelplane.k8s.helm_chart import CHARTS
from accelplane.k8s.mirror import chart_source, mirrored_image
from accelplane.nodes.air_gap import mirror_url_of, node_sources
from accelplane.rules.hygiene.air_gap_sources_in_mirror import ARTIFACT_SOURCES
from accelplane.rules.view import Resource


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _chart_sources(platform: Mapping[str, Any], mirror: str, registry: str | None) -> list[dict[str, str]]:

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

    air_gap = platform.get("air_gap")
    mirror = mirror_url_of(platform)
    if not isinstance(air_gap, Mapping) or mirror is None:
        return []
    registry = air_gap.get("registry") if isinstance(air_gap.get("registry"), str) else None
    sources: list[dict[str, str]] = []
    bare_metal = _mapping(platform.get("bare_metal"))
    if bare_metal:
        # What the inventory gives every host group (the mirror replaces the declared sources).
        nodes = node_sources(air_gap, _mapping(bare_metal.get("python")))
        for index, repository in enumerate(nodes.get("accelplane_repositories") or []):
            sources.append({"field": f"accelplane_repositories[{index}].uri", "url": repository["uri"], "kind": "apt"})
        python = nodes["accelplane_python"]
        for key, kind in (("index_url", "python"), ("find_links", "python"), ("efa_installer_url", "installer")):
            url = python.get(key)
            if isinstance(url, str) and "://" in url:  # a plain path is the node's own directory
                sources.append({"field": f"accelplane_python.{key}", "url": url, "kind": kind})
        nccl = nodes.get("nccl_tests_source_url")
        if isinstance(nccl, str):
            sources.append({"field": "nccl_tests_source_url", "url": nccl, "kind": "installer"})
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
