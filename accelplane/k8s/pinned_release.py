"""A `helm.v3.Release` of one chart from `helm_chart.CHARTS`, at a version from a software profile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelplane.k8s.helm_chart import CHARTS


def pinned_release(
    name: str, chart_key: str, version: str, values: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> k8s.helm.v3.Release:
    source = CHARTS[chart_key]
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
