"""A `helm.v3.Release` of one chart from `helm_chart.CHARTS` (or the air-gap mirror, `accelplane.k8s.mirror`),
at a version from a software profile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelplane.k8s.mirror import current_chart


def pinned_release(
    name: str, chart_key: str, version: str, values: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> k8s.helm.v3.Release:
    source = current_chart(chart_key)  # the mirror's chart repository or registry when air-gapped
    return k8s.helm.v3.Release(
        name,
        name=name,
        chart=source.chart,
        version=version,
        repository_opts={"repo": source.repository} if source.repository else None,
        namespace=source.namespace,
        create_namespace=source.namespace not in ("kube-system",),
        values=dict(values),
        # Roll back a failed upgrade instead of leaving a half-applied release.
        atomic=True,
        cleanup_on_fail=True,
        timeout=600,
        opts=opts,
    )
