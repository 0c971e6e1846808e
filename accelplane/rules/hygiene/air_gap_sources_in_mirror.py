"""AP-AIR-001: an air-gapped stack fetches every artifact from its declared mirror.

The most repeated air-gap failure is an install that reaches out anyway: an apt source, a wheel
index, an installer URL, a chart repository or an image registry left at its public default. The
declaration names the mirror once (`air_gap`) and keeps its upstream sources for `bundle lock`; the
inventory and the Kubernetes layer replace them with the mirror. This rule judges one resource per
stack (`accelplane:bundle:ArtifactSources`, built by `accelplane.bundle.sources` with the same
derivation) listing every source the nodes and the cluster effectively fetch from — so what it
flags is what would still reach out: an image by digest or an OCI chart while `air_gap.registry` is
unset, or any source the derivation leaves outside the mirror.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

ARTIFACT_SOURCES = "accelplane:bundle:ArtifactSources"


def _inside(url: str, base: str) -> bool:
    base = base.rstrip("/")
    return url == base or url.startswith(base + "/")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    mirror = resource.get("mirror")
    registry = resource.get("registry")
    if not isinstance(mirror, str):
        return
    for source in resource.get("sources") or []:
        if not isinstance(source, Mapping):
            continue
        url, where, kind = source.get("url"), source.get("field"), source.get("kind")
        if not isinstance(url, str):
            continue
        if kind == "image":
            if not isinstance(registry, str):
                yield f"{where}: image {url} but air_gap declares no registry"
            elif not _inside(url, registry):
                yield f"{where}: image {url} is not in the mirror registry {registry}"
        elif not _inside(url, mirror):
            yield f"{where}: {kind} source {url} is not the mirror {mirror}"


RULE = Rule(
    id="AP-AIR-001",
    name="air-gap-sources-in-mirror",
    description="Checks whether every artifact source an air-gapped stack's nodes and cluster effectively use "
    "(apt repository, Python index, installer URLs, chart repositories, images) is in its declared mirror.",
    family=Family.hygiene,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare air_gap.registry for images and OCI charts; the nodes' sources come from "
    "air_gap.mirror_url (<url>/apt, <url>/python/simple/, <url>/files/, <url>/charts), which "
    "`accelplane bundle lock` and `fetch` fill.",
    resource_types=frozenset({ARTIFACT_SOURCES}),
    check=check,
    categories=("supply-chain", "air-gap"),
)
