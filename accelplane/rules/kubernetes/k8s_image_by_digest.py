"""AP-K8S-005: container images are pinned by digest (nothing floats, docs/conventions.md 13)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.kubernetes.pods import containers
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get

_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for container in containers(resource):
        image = as_str(get(container, "image"))
        if not _DIGEST.search(image):
            yield f"container {as_str(get(container, 'name'), '?')}: image {image or '(none)'} is not pinned by digest"


RULE = Rule(
    id="AP-K8S-005",
    name="k8s-image-by-digest",
    description="Checks whether every container image is referenced by @sha256 digest.",
    family=Family.kubernetes,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Reference images as registry/name:tag@sha256:<digest>.",
    resource_types=t.K8S_WORKLOAD_TYPES,
    check=check,
    categories=("kubernetes", "supply-chain"),
)
