"""Strict JSON Schemas for the custom resources the layer creates, from their published CRD schemas.

`kubernetes_validate` knows only the built-in kinds. `crds/` holds, per custom resource, the
`openAPIV3Schema` of the CRD version at the release the stacks pin (descriptions dropped; each file
names its repository, tag, commit and path; regenerate with `tools/refresh_crd_schemas.py`):
Gateway and HTTPRoute (Gateway API v1.2.1 standard), PodMonitor and PrometheusRule
(kube-prometheus-stack 72.6.2), ResourceFlavor, ClusterQueue, LocalQueue (Kueue 0.14.2), JobSet
(0.10.1), TargetGroupBinding (AWS Load Balancer Controller 2.13.0), and GKE's GCPBackendPolicy,
GCPGatewayPolicy and HealthCheckPolicy (no upstream CRD source: extracted from GKE by
datreeio/CRDs-catalog).

`strict_schema` makes them strict the way kubernetes_validate's "strict" schemas are: an object
with declared properties admits no other key (unless the CRD says `x-kubernetes-preserve-unknown-
fields`), `x-kubernetes-int-or-string` admits an integer or a string, and `metadata` is the
cluster version's strict ObjectMeta. CEL rules (`x-kubernetes-validations`) are not evaluated.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

PACKAGE = "accelplane.k8s.crds"
OBJECT_META = "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


@cache
def _index() -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> file name."""
    index = {}
    for entry in resources.files(PACKAGE).iterdir():
        if entry.name.endswith(".json"):
            document = json.loads(entry.read_text(encoding="utf-8"))
            index[(document["apiVersion"], document["kind"])] = entry.name
    return index


def known() -> frozenset[tuple[str, str]]:
    """(apiVersion, kind) of every custom resource with a stored schema."""
    return frozenset(_index())


@cache
def document(api_version: str, kind: str) -> dict[str, Any] | None:
    name = _index().get((api_version, kind))
    if name is None:
        return None
    return json.loads(resources.files(PACKAGE).joinpath(name).read_text(encoding="utf-8"))


# In a structural schema, what sits under these only adds value checks to the fields declared
# beside them (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema):
# a branch listing one property does not forbid the others.
_VALUE_ONLY = frozenset({"oneOf", "anyOf", "allOf", "not"})


def _strict(node: Any, structural: bool = True) -> Any:
    if isinstance(node, list):
        return [_strict(item, structural) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value, structural and key not in _VALUE_ONLY) for key, value in node.items()}
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["type"] = ["integer", "string"]
    if structural and "properties" in node and "additionalProperties" not in node and not node.get(
        "x-kubernetes-preserve-unknown-fields"
    ):
        out["additionalProperties"] = False
    return out


@cache
def strict_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The strict JSON Schema of a custom resource, or None when none is stored."""
    stored = document(api_version, kind)
    if stored is None:
        return None
    schema = _strict(stored["schema"])
    properties = dict(schema.get("properties", {}))
    properties["apiVersion"] = {"type": "string", "enum": [api_version]}
    properties["kind"] = {"type": "string", "enum": [kind]}
    properties["metadata"] = {"$ref": OBJECT_META}
    return {**schema, "properties": properties, "additionalProperties": False}
