"""Validate every Kubernetes object the program creates against the stack's Kubernetes version.

`kubernetes_validate` (strict: unknown fields are errors) knows the built-in kinds. Custom
resources (Kueue, TargetGroupBinding, PrometheusRule) and Helm releases are listed as not
schema-checked here; the JobSet template kept in a ConfigMap has its pod template validated as
the `batch/v1` Job it becomes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import kubernetes_validate
import yaml
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from kubernetes_validate.utils import VersionNotSupportedError, all_versions, schema_contents
from referencing import Registry, Resource

from accelplane.engine.offline import Graph, RecordedResource
from accelplane.k8s.training_template import TEMPLATE_KEY

_NOT_MANIFESTS = ("kubernetes:helm.sh/", "pulumi:providers:")


@dataclass(frozen=True)
class ManifestReport:
    validated: list[str]
    unchecked: list[str]  # custom resources: no schema in kubernetes_validate
    errors: list[tuple[str, str]]  # (object, message)

    @property
    def ok(self) -> bool:
        return not self.errors


def manifests(graph: Graph) -> Iterator[tuple[RecordedResource, dict[str, Any]]]:
    for resource in graph.resources:
        if resource.type.startswith("kubernetes:") and not resource.type.startswith(_NOT_MANIFESTS):
            yield resource, _strip_nulls(resource.inputs)


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def _job_from_jobset(document: str) -> dict[str, Any]:
    jobset = yaml.safe_load(document)
    job_template = jobset["spec"]["replicatedJobs"][0]["template"]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "template-check", "namespace": jobset["metadata"]["namespace"]},
        "spec": job_template["spec"],
    }


@cache
def _definitions(schema_dir: str) -> Registry:
    return Resource.from_contents(schema_contents(f"kubernetes-json-schema/{schema_dir}/_definitions.json", "")) @ (
        Registry()
    )


@cache
def _validator(kind: str, api_version: str, version: str) -> Validator:
    """kubernetes_validate's own schema files and rules, with the 5 MB definitions parsed once.

    `kubernetes_validate.validate` re-reads `_definitions.json` on every call (0.7 s for prod);
    this keeps its semantics (strict schemas, group/version file naming) and caches the parse.
    """
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema_dir = f"v{version}-local-strict"
    try:
        schema = schema_contents(f"kubernetes-json-schema/{schema_dir}/{kind.lower()}-{group_version}.json", version)
    except FileNotFoundError:
        raise kubernetes_validate.SchemaNotFoundError(version=version, kind=kind, api_version=api_version) from None
    registry = Resource.from_contents(schema) @ _definitions(schema_dir)
    return Draft202012Validator(schema, registry=registry)


def _schema_version(kubernetes_version: str) -> str:
    """The newest schema set kubernetes_validate ships that is not newer than the cluster."""
    wanted = tuple(int(p) for p in kubernetes_version.split(".")[:2])
    known = [v for v in all_versions() if tuple(map(int, v.split(".")[:2])) <= wanted]
    if not known:
        raise VersionNotSupportedError(version=kubernetes_version)
    return known[-1]


def validate_graph(graph: Graph, kubernetes_version: str) -> ManifestReport:
    version = _schema_version(kubernetes_version)
    validated: list[str] = []
    unchecked: list[str] = []
    errors: list[tuple[str, str]] = []
    for resource, manifest in manifests(graph):
        label = f"{manifest.get('kind')}/{manifest.get('metadata', {}).get('name')} ({resource.name})"
        documents = [manifest]
        if manifest.get("kind") == "ConfigMap" and TEMPLATE_KEY in manifest.get("data", {}):
            documents.append(_job_from_jobset(manifest["data"][TEMPLATE_KEY]))
        for document in documents:
            try:
                validator = _validator(str(document["kind"]), str(document["apiVersion"]), version)
            except kubernetes_validate.SchemaNotFoundError:
                unchecked.append(label)
                continue
            problems = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
            for error in problems:
                path = ".".join(str(p) for p in error.path)
                errors.append((label, f"{path}: {error.message}" if path else error.message))
            if not problems:
                validated.append(label)
    return ManifestReport(validated=validated, unchecked=unchecked, errors=errors)


def render_manifest_report(report: ManifestReport, kubernetes_version: str) -> str:
    lines = [
        f"Kubernetes manifests: {len(report.validated)} valid against Kubernetes {kubernetes_version} (strict), "
        f"{len(report.errors)} invalid, {len(report.unchecked)} custom resources without a built-in schema"
    ]
    lines += [f"    invalid  {label}: {message}" for label, message in report.errors]
    return "\n".join(lines)
