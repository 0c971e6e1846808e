"""Where the Kubernetes layer's charts and images come from on an air-gapped stack.

`air_gap.mirror_url` holds a Helm chart repository at `<url>/charts` (the `index.yaml` that
`accelplane bundle fetch` writes, docs/bundle.md), and `air_gap.registry` the images and OCI charts
`bundle export --format skopeo-sync` copied there, under their own repository path. The functions
here are plain (strings in, strings out) so AP-AIR-001's sources (`accelplane.bundle.sources`) judge
exactly what the layer deploys.

The layer sets the stack's `air_gap` for the duration of its build (`air_gapped`), so the chart and
image call sites (`pinned_release`, the workloads, the Neuron monitor) need no extra argument
threaded through every component's Args.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import replace

from accelplane.declaration import AirGap
from accelplane.errors import InputError
from accelplane.k8s.helm_chart import CHARTS, ChartSource
from accelplane.nodes.air_gap import chart_repository
from accelplane.oci_reference import parse_reference

_AIR_GAP: ContextVar[AirGap | None] = ContextVar("accelplane_k8s_air_gap", default=None)


@contextlib.contextmanager
def air_gapped(air_gap: AirGap | None) -> Iterator[None]:
    token = _AIR_GAP.set(air_gap)
    try:
        yield
    finally:
        _AIR_GAP.reset(token)


def chart_source(key: str, mirror_url: str | None, registry: str | None) -> ChartSource:
    """The chart `key` of CHARTS as an air-gapped stack installs it: an index chart from the mirror's
    chart repository, an OCI chart from the mirror registry (unchanged without one, so AP-AIR-001
    names it)."""
    source = CHARTS[key]
    if mirror_url is None:
        return source
    if source.repository is not None:
        return replace(source, repository=chart_repository(mirror_url))
    if registry is not None:
        return replace(source, chart="oci://" + mirrored_image(source.chart.removeprefix("oci://"), registry))
    return source


def mirrored_image(reference: str, registry: str | None) -> str:
    """`reference` with its registry host replaced by `registry`, repository, tag and digest kept;
    unchanged without a registry or when it is not a registry/repository reference."""
    if registry is None:
        return reference
    try:
        parsed = parse_reference(reference)
    except InputError:
        return reference
    tag = f":{parsed.tag}" if parsed.tag else ""
    digest = f"@{parsed.digest}" if parsed.digest else ""
    return f"{registry}/{parsed.repository}{tag}{digest}"


def current_chart(key: str) -> ChartSource:
    air_gap = _AIR_GAP.get()
    return chart_source(key, air_gap.mirror_url if air_gap else None, air_gap.registry if air_gap else None)


def current_image(reference: str) -> str:
    """A digest-pinned image of the declaration, from the mirror registry when air-gapped."""
    air_gap = _AIR_GAP.get()
    if air_gap is None or "@sha256:" not in reference:
        return reference
    return mirrored_image(reference, air_gap.registry)
