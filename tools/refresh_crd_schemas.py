"""Regenerate `accelplane/k8s/crds/*.json`: the schemas of the custom resources the Kubernetes layer creates.

Each file holds one CRD version's `openAPIV3Schema` (descriptions dropped) as published at the release
the stacks pin (the chart versions in the software profiles), with where it came from; the layer
turns it into a strict JSON Schema when it validates manifests (`accelplane/k8s/crd_schemas.py`).
GKE publishes no CRD source for its Gateway policies; their schemas come from datreeio/CRDs-catalog,
which extracts them from GKE clusters.

    python tools/refresh_crd_schemas.py MIRRORS_DIR

MIRRORS_DIR holds git clones named `<owner>+<repo>/repo` (bare or not) with the tags below.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[1] / "accelplane" / "k8s" / "crds"

# (repository, ref, path, version served, why this ref)
CRDS = [
    ("kubernetes-sigs/gateway-api", "v1.2.1", "config/crd/standard/gateway.networking.k8s.io_gateways.yaml", "v1",
     "Gateway API standard channel, as GKE installs it (gateway_api_config CHANNEL_STANDARD)"),
    ("kubernetes-sigs/gateway-api", "v1.2.1", "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml", "v1",
     "Gateway API standard channel, as GKE installs it (gateway_api_config CHANNEL_STANDARD)"),
    ("prometheus-community/helm-charts", "kube-prometheus-stack-72.6.2",
     "charts/kube-prometheus-stack/charts/crds/crds/crd-podmonitors.yaml", "v1", "kube_prometheus_stack 72.6.2"),
    ("prometheus-community/helm-charts", "kube-prometheus-stack-72.6.2",
     "charts/kube-prometheus-stack/charts/crds/crds/crd-prometheusrules.yaml", "v1", "kube_prometheus_stack 72.6.2"),
    ("kubernetes-sigs/kueue", "v0.14.2", "config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml", "v1beta1",
     "kueue 0.14.2"),
    ("kubernetes-sigs/kueue", "v0.14.2", "config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml", "v1beta1",
     "kueue 0.14.2"),
    ("kubernetes-sigs/kueue", "v0.14.2", "config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml", "v1beta1",
     "kueue 0.14.2"),
    ("kubernetes-sigs/jobset", "v0.10.1", "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml", "v1alpha2",
     "jobset 0.10.1"),
    ("kubernetes-sigs/aws-load-balancer-controller", "v2.13.0",
     "config/crd/bases/elbv2.k8s.aws_targetgroupbindings.yaml", "v1beta1",
     "aws_load_balancer_controller chart 1.13.0 (controller v2.13.0)"),
]
# JSON Schemas extracted from GKE clusters (no upstream CRD source is published).
CATALOG = ("datreeio/CRDs-catalog", "HEAD")
GKE_SCHEMAS = [
    ("networking.gke.io", "v1", "GCPBackendPolicy", "networking.gke.io/gcpbackendpolicy_v1.json"),
    ("networking.gke.io", "v1", "GCPGatewayPolicy", "networking.gke.io/gcpgatewaypolicy_v1.json"),
    ("networking.gke.io", "v1", "HealthCheckPolicy", "networking.gke.io/healthcheckpolicy_v1.json"),
]


def _git(mirrors: Path, repository: str, *args: str) -> str:
    repo = mirrors / repository.replace("/", "+") / "repo"
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _write(group: str, version: str, kind: str, source: dict[str, str], schema: dict[str, Any]) -> None:
    path = OUT / f"{group}_{version}_{kind}.json"
    document = {"apiVersion": f"{group}/{version}", "kind": kind, "source": source, "schema": _strip(schema)}
    path.write_text(json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {path.name}")


def main(mirrors: Path) -> None:
    for repository, ref, path, version, why in CRDS:
        crd = yaml.safe_load(_git(mirrors, repository, "show", f"{ref}:{path}"))
        served = next(v for v in crd["spec"]["versions"] if v["name"] == version)
        commit = _git(mirrors, repository, "rev-parse", f"{ref}^{{commit}}").strip()
        source = {"repository": repository, "ref": ref, "commit": commit, "path": path, "pinned_by": why}
        _write(crd["spec"]["group"], version, crd["spec"]["names"]["kind"], source, served["schema"]["openAPIV3Schema"])
    repository, ref = CATALOG
    commit = _git(mirrors, repository, "rev-parse", f"{ref}^{{commit}}").strip()
    for group, version, kind, path in GKE_SCHEMAS:
        schema = json.loads(_git(mirrors, repository, "show", f"{commit}:{path}"))
        source = {"repository": repository, "ref": commit, "commit": commit, "path": path,
                  "pinned_by": "GKE-managed CRD (extracted from GKE by the catalog)"}
        _write(group, version, kind, source, schema)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
