"""Check recorded pulumi-gcp inputs against Google's API discovery documents.

Mocks accept anything, and pulumi-gcp has no Literal types: a misspelt nested key or an enum value
Google does not know passes every offline run and fails halfway through `pulumi up`. This module
walks the wire-format (camelCase) inputs of every recorded resource and resolves each key path in
the JSON schema of the API the provider calls (the discovery documents google-api-python-client
ships, the way botocore's models back the AWS layer):

- every key must be an input of the pulumi-gcp resource (its `...Args` classes, by wire name), so
  a key spelt the API's way where the provider spells it otherwise fails too;
- every key must exist in the schema (through `$ref`s, arrays and maps), or be listed below as a
  provider-only argument with the reason it has no API field, or be renamed explicitly where the
  provider's name differs from the API's;
- a value must be one of the field's `enum`, or of the values Google states in the field's
  description (gcp_catalog's `described_enum`, or parsed here), and of the field's JSON type;
- a field the document marks deprecated, or describes as output only, fails unless allowed below
  with the reason.
"""

from __future__ import annotations

import importlib
import re
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from accelplane.clouds.gcp import catalog as gcp_catalog
from tools import google_discovery

SECRET = "[secret]"  # how the offline recording masks a Pulumi secret


def document(name: str) -> dict[str, Any]:
    """The discovery document `name` ("container.v1"), read by the project's one reader."""
    api, version = name.rsplit(".", 1)
    return google_discovery.document(api, version)


def _path(dotted: str) -> tuple[str, ...]:
    return tuple(dotted.split(".")) if dotted else ()


@dataclass(frozen=True)
class ApiShape:
    """Where a resource type's inputs live in an API, and how the provider's names map to it."""

    document: str  # e.g. "container.v1"
    schema: str  # the root schema, e.g. "Cluster"
    root: str = ""  # a path below the schema (e.g. "bindings" of a Policy)
    # provider path -> API path (dotted, relative to the root); the longest matching prefix wins
    renames: Mapping[str, str] = field(default_factory=dict)
    # provider paths with no API field -> why (URL parameters, parents, provider behaviour)
    provider_only: Mapping[str, str] = field(default_factory=dict)
    # provider path -> value as the API carries it (None: no field is sent)
    values: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    resource: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.resource}: {self.path}: {self.message}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    checked: list[tuple[str, str, str]] = field(default_factory=list)  # (type, api path, where)
    enums: list[tuple[str, str, Any]] = field(default_factory=list)  # (type, api path, value) checked


_IAM_BINDING = {"member": "members"}
_LABELS_NOTE = "pulumi-gcp computes effectiveLabels/terraformLabels from it"

# Deprecated fields sent on purpose: (type token, API path) -> why.
DEPRECATED_ALLOWED: dict[tuple[str, str], str] = {
    ("gcp:container/cluster:Cluster", "privateClusterConfig.enablePrivateNodes"): (
        "pulumi-gcp 10.2 exposes private nodes only here (no networkConfig.defaultEnablePrivateNodes argument)"
    ),
    ("gcp:container/cluster:Cluster", "privateClusterConfig.enablePrivateEndpoint"): (
        "pulumi-gcp 10.2 has no ipEndpointsConfig.enablePublicEndpoint argument; this is how it turns the "
        "public endpoint off"
    ),
    ("gcp:container/cluster:Cluster", "masterAuthorizedNetworksConfig"): (
        "pulumi-gcp 10.2 has no ipEndpointsConfig.authorizedNetworksConfig argument; the top-level block is how "
        "it sets authorized networks"
    ),
    ("gcp:container/cluster:Cluster", "nodeConfig"): (
        "shapes the default pool the provider creates and removes: it runs as the node service account, never "
        "the Compute Engine default one, for the minutes it exists"
    ),
    ("gcp:container/cluster:Cluster", "initialNodeCount"): (
        "the provider needs it (>= 1) to create the default pool it then removes (remove_default_node_pool)"
    ),
}

SHAPES: dict[str, ApiShape] = {
    "gcp:compute/network:Network": ApiShape(
        "compute.v1",
        "Network",
        renames={"routingMode": "routingConfig.routingMode"},
        provider_only={"project": "URL parameter"},
    ),
    "gcp:compute/subnetwork:Subnetwork": ApiShape(
        "compute.v1", "Subnetwork", provider_only={"project": "URL parameter"}
    ),
    "gcp:compute/router:Router": ApiShape(
        "compute.v1",
        "Router",
        # Router.region is "[Output Only] ... not settable as a field in the request body".
        provider_only={"project": "URL parameter", "region": "URL parameter"},
    ),
    "gcp:compute/routerNat:RouterNat": ApiShape(
        "compute.v1",
        "RouterNat",
        renames={"subnetworks.sourceIpRangesToNats": "subnetworks.sourceIpRangesToNat"},
        provider_only={
            "router": "the Router the NAT is an entry of (routers.patch URL)",
            "region": "URL parameter",
            "project": "URL parameter",
        },
    ),
    "gcp:compute/firewall:Firewall": ApiShape(
        "compute.v1",
        "Firewall",
        renames={
            "allows": "allowed",
            "allows.protocol": "allowed.IPProtocol",
            "denies": "denied",
            "denies.protocol": "denied.IPProtocol",
        },
        provider_only={"project": "URL parameter"},
    ),
    "gcp:compute/globalAddress:GlobalAddress": ApiShape(
        "compute.v1", "Address", provider_only={"project": "URL parameter"}
    ),
    "gcp:compute/sSLPolicy:SSLPolicy": ApiShape("compute.v1", "SslPolicy", provider_only={"project": "URL parameter"}),
    "gcp:certificatemanager/certificateMap:CertificateMap": ApiShape(
        "certificatemanager.v1", "CertificateMap", provider_only={"project": "URL parameter"}
    ),
    "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry": ApiShape(
        "certificatemanager.v1", "CertificateMapEntry",
        provider_only={"project": "URL parameter", "map": "the map the entry belongs to (URL parameter)"},
    ),
    "gcp:compute/securityPolicy:SecurityPolicy": ApiShape(
        "compute.v1", "SecurityPolicy", provider_only={"project": "URL parameter"}
    ),
    "gcp:container/cluster:Cluster": ApiShape(
        "container.v1",
        "Cluster",
        renames={
            "minMasterVersion": "initialClusterVersion",
            "datapathProvider": "networkConfig.datapathProvider",
            "gatewayApiConfig": "networkConfig.gatewayApiConfig",
            "enableShieldedNodes": "shieldedNodes.enabled",
            "enableLegacyAbac": "legacyAbac.enabled",
            "loggingConfig.enableComponents": "loggingConfig.componentConfig.enableComponents",
            "monitoringConfig.enableComponents": "monitoringConfig.componentConfig.enableComponents",
            "monitoringConfig.managedPrometheus": "monitoringConfig.managedPrometheusConfig",
        },
        provider_only={
            "project": "URL parameter",
            "location": "URL parameter",
            "deletionProtection": "provider-side guard against deletion",
            "removeDefaultNodePool": "provider deletes the default pool after creation",
            "networkingMode": "the provider sets ipAllocationPolicy.useIpAliases from it",
        },
    ),
    "gcp:container/nodePool:NodePool": ApiShape(
        "container.v1",
        "NodePool",
        renames={
            "nodeConfig": "config",
            "nodeConfig.guestAccelerators": "config.accelerators",
            "nodeConfig.guestAccelerators.type": "config.accelerators.acceleratorType",
            "nodeConfig.guestAccelerators.count": "config.accelerators.acceleratorCount",
            "nodeLocations": "locations",
        },
        provider_only={
            "cluster": "URL parameter (the parent cluster)",
            "location": "URL parameter",
            "project": "URL parameter",
            "nodeCount": "the provider sets the size with nodePools.setSize (initialNodeCount on create)",
        },
    ),
    "gcp:compute/futureReservation:FutureReservation": ApiShape(
        "compute.v1", "FutureReservation", provider_only={"project": "URL parameter", "zone": "URL parameter"}
    ),
    "gcp:kms/keyRing:KeyRing": ApiShape(
        "cloudkms.v1",
        "KeyRing",
        provider_only={"location": "URL parameter", "project": "URL parameter", "name": "keyRingId URL parameter"},
    ),
    "gcp:kms/cryptoKey:CryptoKey": ApiShape(
        "cloudkms.v1",
        "CryptoKey",
        provider_only={"keyRing": "URL parameter (the parent)", "name": "cryptoKeyId URL parameter"},
    ),
    "gcp:kms/cryptoKeyIAMBinding:CryptoKeyIAMBinding": ApiShape(
        "cloudkms.v1", "Policy", root="bindings", provider_only={"cryptoKeyId": "the resource whose policy is set"}
    ),
    "gcp:serviceaccount/account:Account": ApiShape(
        "iam.v1",
        "CreateServiceAccountRequest",
        renames={"displayName": "serviceAccount.displayName", "description": "serviceAccount.description"},
        provider_only={"project": "URL parameter"},
    ),
    "gcp:projects/iAMMember:IAMMember": ApiShape(
        "iam.v1", "Policy", root="bindings", renames=_IAM_BINDING, provider_only={"project": "the project's policy"}
    ),
    "gcp:projects/serviceIdentity:ServiceIdentity": ApiShape(
        "serviceusage.v1beta1",
        "ServiceIdentity",
        provider_only={
            "service": "URL parameter of services.generateServiceIdentity (no request body)",
            "project": "URL parameter",
        },
    ),
    "gcp:storage/bucket:Bucket": ApiShape(
        "storage.v1",
        "Bucket",
        renames={
            "uniformBucketLevelAccess": "iamConfiguration.uniformBucketLevelAccess.enabled",
            "publicAccessPrevention": "iamConfiguration.publicAccessPrevention",
            "lifecycleRules": "lifecycle.rule",
            "lifecycleRules.condition.matchesPrefixes": "lifecycle.rule.condition.matchesPrefix",
            "lifecycleRules.condition.withState": "lifecycle.rule.condition.isLive",
        },
        provider_only={
            "forceDestroy": "provider deletes the objects before the bucket",
            "project": "URL parameter",
        },
        values={
            # The provider sends isLive=true/false for LIVE/ARCHIVED and nothing for ANY.
            "lifecycleRules.condition.withState": lambda value: {"LIVE": True, "ARCHIVED": False}.get(value, value)
        },
    ),
    "gcp:storage/bucketIAMMember:BucketIAMMember": ApiShape(
        "storage.v1", "Policy", root="bindings", renames=_IAM_BINDING, provider_only={"bucket": "URL parameter"}
    ),
    "gcp:secretmanager/secret:Secret": ApiShape(
        "secretmanager.v1",
        "Secret",
        provider_only={"secretId": "URL parameter of secrets.create", "project": "URL parameter"},
    ),
    "gcp:secretmanager/secretVersion:SecretVersion": ApiShape(
        "secretmanager.v1",
        "AddSecretVersionRequest",
        renames={"secretData": "payload.data"},
        provider_only={"secret": "URL parameter (the parent secret)"},
    ),
    "gcp:secretmanager/secretIamMember:SecretIamMember": ApiShape(
        "secretmanager.v1",
        "Policy",
        root="bindings",
        renames=_IAM_BINDING,
        provider_only={"secretId": "the resource whose policy is set", "project": "URL parameter"},
    ),
}


def _firewall_protocols(description: str) -> frozenset[str]:
    # "...one of the following well known protocol strings (tcp, udp,icmp, esp, ah, ipip,sctp) or the IP
    # protocol number."
    match = re.search(r"\(([a-z, ]+)\)", description)
    assert match, description
    return frozenset(part.strip() for part in match.group(1).split(","))


# Values Google states only in a description: (document, API path from the root schema) -> allowed values.
def described_values(doc: str, schema: str, api_path: str) -> frozenset[str] | None:
    key = (doc, schema, api_path)
    if key == ("storage.v1", "Bucket", "storageClass") or key == (
        "storage.v1",
        "Bucket",
        "lifecycle.rule.action.storageClass",
    ):
        return gcp_catalog.gcs_storage_classes()
    if key == ("storage.v1", "Bucket", "lifecycle.rule.action.type"):
        return gcp_catalog.gcs_lifecycle_actions()
    if key == ("storage.v1", "Bucket", "iamConfiguration.publicAccessPrevention"):
        return gcp_catalog.gcs_public_access_prevention()
    if key == ("compute.v1", "SecurityPolicy", "rules.action"):
        return gcp_catalog.security_policy_rule_actions()
    if doc == "compute.v1" and schema == "Firewall" and api_path in ("allowed.IPProtocol", "denied.IPProtocol"):
        items = document(doc)["schemas"]["Firewall"]["properties"][api_path.split(".")[0]]["items"]
        return _firewall_protocols(items["properties"]["IPProtocol"]["description"])
    return None


def _args_class(type_token: str) -> type:
    """`gcp:compute/sSLPolicy:SSLPolicy` -> pulumi_gcp.compute.SSLPolicyArgs."""
    module_name = type_token.split(":")[1].split("/")[0]
    class_name = type_token.rsplit(":", 1)[1]
    return getattr(importlib.import_module(f"pulumi_gcp.{module_name}"), f"{class_name}Args")


def _nested_args(annotation: Any, namespace: Mapping[str, Any]) -> type | None:
    """The `...Args` class an input annotation refers to (through Optional, Input, Sequence), if any."""
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        found = namespace.get(annotation)
        return found if isinstance(found, type) and annotation.endswith("Args") else None
    if isinstance(annotation, type) and annotation.__name__.endswith("Args"):
        return annotation
    for argument in typing.get_args(annotation):
        nested = _nested_args(argument, namespace)
        if nested is not None:
            return nested
    return None


@cache
def provider_inputs(args_class: type) -> dict[str, type | None]:
    """Wire name -> nested Args class (None for scalars, lists of scalars and maps) of a pulumi-gcp Args class."""
    tree: dict[str, type | None] = {}
    for attribute in vars(args_class).values():
        getter = getattr(attribute, "fget", None)
        wire = getattr(getter, "_pulumi_name", None)
        if getter is not None and isinstance(wire, str):
            tree[wire] = _nested_args(getter.__annotations__.get("return"), getter.__globals__)
    return tree


def provider_problem(type_token: str, path: tuple[str, ...]) -> str | None:
    args_class: type | None = _args_class(type_token)
    for depth, step in enumerate(path):
        if args_class is None:
            return None  # a map (labels, metadata): the rest of the path is its keys
        inputs = provider_inputs(args_class)
        if step not in inputs:
            where = ".".join(path[:depth]) or "the resource"
            return f"no input {step!r} in pulumi-gcp {args_class.__name__} (under {where})"
        args_class = inputs[step]
    return None


def _resolve(doc: str, node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = document(doc)["schemas"][node["$ref"]]
    return node


def _items(doc: str, node: dict[str, Any]) -> dict[str, Any]:
    node = _resolve(doc, node)
    while node.get("type") == "array":
        node = _resolve(doc, node["items"])
    return node


def _output_only(prop: dict[str, Any]) -> bool:
    text = prop.get("description", "").lstrip()
    return text.startswith("Output only") or text.startswith("[Output Only]") or text.startswith("[Output only]")


def leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Key paths to scalar values; lists are transparent (their items share the path)."""
    if isinstance(value, dict):
        if not value:
            yield path, value
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        if not value:
            yield path, value
        for item in value:
            yield from leaves(item, path)
    else:
        yield path, value


def _longest(mapping: Mapping[str, Any], path: tuple[str, ...]) -> tuple[tuple[str, ...], Any] | None:
    best: tuple[tuple[str, ...], Any] | None = None
    for dotted, target in mapping.items():
        prefix = _path(dotted)
        if path[: len(prefix)] == prefix and (best is None or len(prefix) > len(best[0])):
            best = (prefix, target)
    return best


def _type_ok(node: dict[str, Any], value: Any) -> bool:
    if value == SECRET or isinstance(value, dict | list):
        return True
    kind, fmt = node.get("type"), node.get("format", "")
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.isdigit() and fmt in ("int64", "uint64")
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        # JSON numbers are accepted for 64-bit integers Google encodes as strings.
        return isinstance(value, str) or (isinstance(value, int) and fmt in ("int64", "uint64", "int32"))
    return kind is None or kind in ("object", "any")


def check_inputs(type_token: str, name: str, inputs: Mapping[str, Any], report: Report) -> None:
    shape = SHAPES.get(type_token)
    if shape is None:
        report.problems.append(Problem(name, "", f"{type_token} has no API shape in tests/gcp/gcp_discovery.py"))
        return
    schemas = document(shape.document)["schemas"]
    for provider_path, raw in leaves(dict(inputs)):
        unknown = provider_problem(type_token, provider_path)
        if unknown is not None:
            report.problems.append(Problem(name, ".".join(provider_path), unknown))
            continue
        if _longest(shape.provider_only, provider_path) is not None:
            continue
        renamed = _longest(shape.renames, provider_path)
        api_path = provider_path if renamed is None else (*_path(renamed[1]), *provider_path[len(renamed[0]) :])
        value = raw
        translate = _longest(shape.values, provider_path)
        if translate is not None:
            value = translate[1](raw)
        where = ".".join(provider_path)
        node = _resolve(shape.document, schemas[shape.schema])
        steps = (*_path(shape.root), *api_path)
        fields: list[str] = []  # the API path without map keys
        problem: str | None = None
        for step in steps:
            node = _items(shape.document, node)
            properties = node.get("properties", {})
            if step in properties:
                prop = properties[step]
                fields.append(step)
                dotted = ".".join(fields[len(_path(shape.root)) :])
                if prop.get("deprecated") and (type_token, dotted) not in DEPRECATED_ALLOWED:
                    problem = f"{shape.schema}.{dotted} is deprecated in {shape.document}"
                    break
                if _output_only(prop):
                    problem = f"{shape.schema}.{dotted} is output only in {shape.document}"
                    break
                node = _resolve(shape.document, prop)
            elif "additionalProperties" in node:
                node = _resolve(shape.document, node["additionalProperties"])  # a map: the step is a key
            else:
                problem = f"no field {step!r} in {shape.document} {shape.schema}" + (
                    f".{'.'.join(fields)}" if fields else ""
                )
                break
        if problem is not None:
            report.problems.append(Problem(name, where, problem))
            continue
        api_dotted = ".".join(fields[len(_path(shape.root)) :])
        report.checked.append((type_token, api_dotted, where))
        scalar = _items(shape.document, node) if isinstance(raw, list | dict) or node.get("type") == "array" else node
        if value in ({}, []):
            continue
        if not _type_ok(scalar, value):
            report.problems.append(
                Problem(name, where, f"{value!r} is not of type {scalar.get('type')} ({shape.schema}.{api_dotted})")
            )
            continue
        allowed: frozenset[str] | None = None
        if "enum" in scalar:
            allowed = frozenset(scalar["enum"])
        else:
            allowed = described_values(shape.document, shape.schema, api_dotted)
        if allowed is not None:
            report.enums.append((type_token, api_dotted, value))
            if value not in allowed:
                report.problems.append(
                    Problem(name, where, f"{value!r} is not one of {sorted(allowed)} ({shape.schema}.{api_dotted})")
                )


def check_resources(resources: list[Any]) -> Report:
    report = Report()
    for resource in resources:
        if resource.custom and resource.type.startswith("gcp:"):
            check_inputs(resource.type, resource.name, resource.inputs, report)
    return report
