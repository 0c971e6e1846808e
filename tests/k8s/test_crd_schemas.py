"""Custom resources are validated as strictly as built-in kinds, against the schemas their CRDs publish at
the releases the stacks pin; the Kubernetes layer validates plain records and never imports the engine."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from accelplane.engine.graph import OfflineGraph
from accelplane.k8s import crd_schemas
from accelplane.k8s.manifests import validate_manifests


@dataclass(frozen=True)
class Record:
    type: str
    name: str
    inputs: dict[str, Any]


@pytest.fixture(scope="module")
def tpu_prod(tpu_prod_graph: OfflineGraph) -> OfflineGraph:
    return tpu_prod_graph  # built once per test process (tests/conftest.py)


def test_every_stored_schema_names_its_source() -> None:
    assert crd_schemas.known() >= {
        ("gateway.networking.k8s.io/v1", "Gateway"), ("gateway.networking.k8s.io/v1", "HTTPRoute"),
        ("networking.gke.io/v1", "GCPBackendPolicy"), ("networking.gke.io/v1", "GCPGatewayPolicy"),
        ("networking.gke.io/v1", "HealthCheckPolicy"), ("monitoring.coreos.com/v1", "PodMonitor"),
        ("monitoring.coreos.com/v1", "PrometheusRule"), ("kueue.x-k8s.io/v1beta1", "ResourceFlavor"),
        ("kueue.x-k8s.io/v1beta1", "ClusterQueue"), ("kueue.x-k8s.io/v1beta1", "LocalQueue"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"), ("elbv2.k8s.aws/v1beta1", "TargetGroupBinding"),
    }
    for api_version, kind in crd_schemas.known():
        document = crd_schemas.document(api_version, kind)
        assert document is not None
        source = document["source"]
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), kind
        assert source["repository"].count("/") == 1 and source["path"] and source["pinned_by"], kind
        assert not _has_key(document["schema"], "description"), kind


def _has_key(node: Any, key: str) -> bool:
    if isinstance(node, dict):
        return key in node or any(_has_key(value, key) for value in node.values())
    if isinstance(node, list):
        return any(_has_key(item, key) for item in node)
    return False


@pytest.mark.parametrize("stack", ["prod", "tpu-prod"])
def test_every_custom_resource_refuses_an_unknown_field(
    stack: str, tpu_prod: OfflineGraph, prod_graph: OfflineGraph
) -> None:
    graph = {"prod": prod_graph, "tpu-prod": tpu_prod}[stack]
    custom = [r for r in graph.resources if r.type.startswith("kubernetes:") and "spec" in r.inputs
              and (r.inputs["apiVersion"], r.inputs["kind"]) in crd_schemas.known()]
    assert len({r.inputs["kind"] for r in custom}) >= 5
    for resource in custom:
        inputs = copy.deepcopy(resource.inputs)
        inputs["spec"]["notAField"] = True
        [(label, message)] = validate_manifests([Record(resource.type, resource.name, inputs)], "1.33").errors
        assert "'notAField' was unexpected" in message, label


def test_value_only_branches_do_not_forbid_declared_fields(tpu_prod: OfflineGraph) -> None:
    """Gateway addresses carry a oneOf on `type`; a NamedAddress with its value is valid, a typo is not."""
    [gateway] = [r for r in tpu_prod.resources if r.type == "kubernetes:gateway.networking.k8s.io/v1:Gateway"]
    assert validate_manifests([Record(gateway.type, gateway.name, gateway.inputs)], "1.33").errors == []
    inputs = copy.deepcopy(gateway.inputs)
    inputs["spec"]["addresses"][0]["valeu"] = inputs["spec"]["addresses"][0].pop("value")
    assert validate_manifests([Record(gateway.type, gateway.name, inputs)], "1.33").errors


def test_int_or_string_fields_take_either() -> None:
    schema = crd_schemas.strict_schema("monitoring.coreos.com/v1", "PodMonitor")
    assert schema is not None
    endpoint = schema["properties"]["spec"]["properties"]["podMetricsEndpoints"]["items"]
    assert endpoint["properties"]["targetPort"]["type"] == ["integer", "string"]
    assert endpoint["additionalProperties"] is False


def test_metadata_is_the_cluster_version_s_strict_object_meta(tpu_prod: OfflineGraph) -> None:
    [policy] = [r for r in tpu_prod.resources if r.type.endswith(":GCPGatewayPolicy")]
    inputs = copy.deepcopy(policy.inputs)
    inputs["metadata"]["labelz"] = {}
    [(_, message)] = validate_manifests([Record(policy.type, policy.name, inputs)], "1.33").errors
    assert message.startswith("metadata:") and "'labelz' was unexpected" in message


def test_the_kubernetes_layer_does_not_import_the_engine() -> None:
    code = (
        "import sys\n"
        "import accelplane.k8s.layer, accelplane.k8s.manifests\n"
        "import accelplane.clouds.aws.k8s.cluster_facts, accelplane.clouds.gcp.k8s.cluster_facts\n"
        "print(sorted(m for m in sys.modules if m.startswith(('accelplane.engine', 'accelplane.cli'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
