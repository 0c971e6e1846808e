"""Validate every Kubernetes object the program creates against the stack's Kubernetes version.

`kubernetes_validate` (strict: unknown fields are errors) knows the built-in kinds; the custom
resources the layer creates (Gateway API, GKE policies, Kueue, JobSet, PodMonitor, PrometheusRule,
TargetGroupBinding) are validated as strictly against their CRDs' published schemas
(`crd_schemas.py`); any other custom resource is listed as not schema-checked. Helm releases and
providers are not manifests. The JobSet template kept in a ConfigMap is validated as a JobSet and
its pod template as the `batch/v1` Job it becomes.

The Kubernetes layer does not know the engine: validation takes plain records (anything with a
`type` token, a `name` and wire-format `inputs`, such as the offline engine's recorded resources),
so the CLI hands over its graph and nothing here imports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import kubernetes_validate
import yaml
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from kubernetes_validate.utils import VersionNotSupportedError, all_versions, schema_contents
from referencing import Registry, Resource

from accelplane.k8s import crd_schemas
from accelplane.k8s.training_template import TEMPLATE_KEY
from accelplane.rules.view import SECRET_PLACEHOLDER

_NOT_MANIFESTS = ("kubernetes:helm.sh/", "pulumi:providers:")


class ObjectRecord(Protocol):
    """One resource as a Pulumi engine reports it: type token, logical name, wire-format inputs."""

    @property
    def type(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def inputs(self) -> Mapping[str, Any]: ...


class RecordSource(Protocol):
    """A set of records, e.g. the offline engine's graph."""

    @property
    def resources(self) -> Sequence[ObjectRecord]: ...


@dataclass(frozen=True)
class ManifestReport:
    validated: list[str]
    unchecked: list[str]  # custom resources: no schema in kubernetes_validate
    errors: list[tuple[str, str]]  # (object, message)

    @property
    def ok(self) -> bool:
        return not self.errors


def manifests(records: Iterable[ObjectRecord]) -> Iterator[tuple[ObjectRecord, dict[str, Any]]]:
    for resource in records:
        if resource.type.startswith("kubernetes:") and not resource.type.startswith(_NOT_MANIFESTS):
            yield resource, _strip_nulls(dict(resource.inputs))


def _strip_nulls(value: Any) -> Any:
    """The manifest without nulls, nor values the engine masks as secrets: what they hold is not shown,
    so it is not validated (a Secret's `stringData` copied from the cloud's secret store)."""
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None and v != SECRET_PLACEHOLDER}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def _from_jobset_template(document: str) -> list[dict[str, Any]]:
    """The JobSet a template ConfigMap holds, and its first replicated job as the Job it becomes."""
    jobset = yaml.safe_load(document)
    job_template = jobset["spec"]["replicatedJobs"][0]["template"]
    return [
        jobset,
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "template-check", "namespace": jobset["metadata"]["namespace"]},
            "spec": job_template["spec"],
        },
    ]


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
    Custom resources with a stored CRD schema are checked against it, their metadata against the
    version's strict ObjectMeta.
    """
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema_dir = f"v{version}-local-strict"
    custom = crd_schemas.strict_schema(api_version, kind)
    if custom is not None:
        return Draft202012Validator(custom, registry=_definitions(schema_dir))
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


def validate_manifests(records: Iterable[ObjectRecord], kubernetes_version: str) -> ManifestReport:
    version = _schema_version(kubernetes_version)
    validated: list[str] = []
    unchecked: list[str] = []
    errors: list[tuple[str, str]] = []
    for resource, manifest in manifests(records):
        documents = [manifest]
        if manifest.get("kind") == "ConfigMap" and TEMPLATE_KEY in manifest.get("data", {}):
            documents += _from_jobset_template(manifest["data"][TEMPLATE_KEY])
        for document in documents:
            metadata = document.get("metadata", {})
            label = f"{document.get('kind')}/{metadata.get('name') or metadata.get('generateName')} ({resource.name})"
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


def validate_graph(graph: RecordSource, kubernetes_version: str) -> ManifestReport:
    """`validate_manifests` over a graph's resources (what `accelplane preview` passes)."""
    return validate_manifests(graph.resources, kubernetes_version)


def render_manifest_report(report: ManifestReport, kubernetes_version: str) -> str:
    lines = [
        f"Kubernetes manifests: {len(report.validated)} valid against Kubernetes {kubernetes_version} (strict), "
        f"{len(report.errors)} invalid, {len(report.unchecked)} custom resources without a built-in schema"
    ]
    lines += [f"    invalid  {label}: {message}" for label, message in report.errors]
    return "\n".join(lines)
