"""Regenerate accelplane/clouds/gcp/catalog.json from Google's API discovery documents.

google-api-python-client ships the discovery document of every Google API it can call
(googleapiclient/discovery_cache/documents/<api>.<version>.json): the same schemas, fields and
enums the REST APIs accept. Pulumi mocks accept any string and pulumi-gcp declares no Literal
types, so the GCP layer checks its enum-like values and nested (camelCase) input keys against
these documents, the way botocore's models back the AWS layer (tools/refresh_aws_catalog.py).

We keep only what the product needs: for each API, the schemas reachable from the resources the
GCP layer creates (their field names and field types, and every enum among them), plus a few value
sets Google documents only in a field's description (Cloud Storage's public access prevention and
storage classes, Cloud Armor rule actions). Those are parsed from the description text by the
extractors below, which fail when the text changes, and are kept apart ("described_enums", with the
sentence they came from) so nobody mistakes them for schema enums. Run after bumping
google-api-python-client:

    .venv/bin/python tools/refresh_gcp_catalog.py
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script: tools/ is a folder of the checkout, not an installed package

from tools import google_discovery  # noqa: E402  (the project's one reader of discovery documents)

OUT = ROOT / "accelplane" / "clouds" / "gcp" / "catalog.json"

# API -> (version, root schemas). Every schema reachable from a root through $ref, array items,
# map values or inline objects is kept. The roots are the resources the GCP layer creates or sets.
APIS: dict[str, tuple[str, tuple[str, ...]]] = {
    # GKE cluster and node pools (NodePool reaches NodeConfig, PlacementPolicy, NodeManagement...).
    "container": ("v1", ("Cluster", "NodePool")),
    # VPC, subnet, Cloud Router + NAT, firewall rules, SSL policy, Cloud Armor, reserved address.
    "compute": ("v1", ("Network", "Subnetwork", "Router", "Firewall", "SslPolicy", "SecurityPolicy", "Address")),
    # Buckets and their IAM policy.
    "storage": ("v1", ("Bucket", "Policy")),
    # Secrets (replication, CMEK) and their IAM policy.
    "secretmanager": ("v1", ("Secret", "SecretVersion", "Policy")),
    # Key rings, keys (purpose, rotation, version template) and their IAM policy.
    "cloudkms": ("v1", ("KeyRing", "CryptoKey", "Policy")),
    # The endpoint's certificate (Certificate Manager) and certificate maps.
    "certificatemanager": ("v1", ("Certificate", "CertificateMap", "CertificateMapEntry", "DnsAuthorization")),
    # Service accounts and IAM policies/bindings/conditions.
    "iam": ("v1", ("ServiceAccount", "Policy")),
    # Project-level IAM (the node service account's roles): the project's IAM policy and bindings.
    "cloudresourcemanager": ("v3", ("Policy",)),
}


def _field_type(owner: str, field: str, prop: dict[str, Any], pending: list[tuple[str, dict[str, Any]]]) -> str:
    """`Ref`, `[T]` (array), `{T}` (map), a JSON type, or `Owner.field` for an inline object (queued)."""
    if "$ref" in prop:
        pending.append((prop["$ref"], {}))
        return prop["$ref"]
    kind = prop.get("type", "any")
    if kind == "array":
        return f"[{_field_type(owner, field, prop.get('items', {}), pending)}]"
    if kind == "object" and "properties" in prop:
        name = f"{owner}.{field}"
        pending.append((name, prop))
        return name
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return "{" + _field_type(owner, field, prop["additionalProperties"], pending) + "}"
    return kind


def _schemas(document: dict[str, Any], roots: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Each reachable schema: its fields (name -> type) and the enums among them."""
    declared = document["schemas"]
    out: dict[str, dict[str, Any]] = {}
    pending: list[tuple[str, dict[str, Any]]] = [(root, {}) for root in roots]
    while pending:
        name, inline = pending.pop()
        if name in out:
            continue
        schema = inline or declared[name]
        fields: dict[str, str] = {}
        enums: dict[str, list[str]] = {}
        deprecated: dict[str, list[str]] = {}
        for field, prop in sorted(schema.get("properties", {}).items()):
            fields[field] = _field_type(name, field, prop, pending)
            holder = prop.get("items", {}) if prop.get("type") == "array" else prop
            if "enum" in holder:
                enums[field] = list(holder["enum"])
                flags = holder.get("enumDeprecated", [])
                gone = [value for value, flag in zip(holder["enum"], flags, strict=False) if flag]
                if gone:
                    deprecated[field] = gone
        entry: dict[str, Any] = {"fields": fields}
        if enums:
            entry["enums"] = enums
        if deprecated:
            entry["deprecated_enum_values"] = deprecated
        out[name] = entry
    return dict(sorted(out.items()))


# ---- value sets Google documents only in a description ----------------------------------------

def _quoted(description: str) -> tuple[str, list[str]]:
    """'Currently, 'inherited' and 'enforced' are supported.' -> the sentence and the quoted words."""
    match = re.search(r"Currently, ('[a-z]+'(?:(?:, |,? and )'[a-z]+')*) are supported\.", description)
    if match is None:
        raise ValueError("the sentence listing the supported values is gone")
    return match.group(0), re.findall(r"'([a-z]+)'", match.group(1))


def _values_include(description: str) -> tuple[str, list[str]]:
    """'Values include MULTI_REGIONAL, REGIONAL, ..., and DURABLE_REDUCED_AVAILABILITY.'"""
    match = re.search(r"Values include ([A-Z_]+(?:, [A-Z_]+)*),? and ([A-Z_]+)\.", description)
    if match is None:
        raise ValueError("the 'Values include ...' sentence is gone")
    return match.group(0), [*match.group(1).split(", "), match.group(2)]


def _only_supported(description: str) -> tuple[str, list[str]]:
    """'Currently, only Delete, SetStorageClass, and AbortIncompleteMultipartUpload are supported.'"""
    match = re.search(r"Currently, only ([A-Za-z]+(?:, [A-Za-z]+)*),? and ([A-Za-z]+) are supported\.", description)
    if match is None:
        raise ValueError("the 'Currently, only ... are supported' sentence is gone")
    return match.group(0), [*match.group(1).split(", "), match.group(2)]


def _armor_actions(description: str) -> tuple[str, list[str]]:
    """The bulleted action list of a Cloud Armor rule; deny(STATUS) expanded with the valid statuses."""
    names = re.findall(r"^\s*- ([a-z_]+)(\(STATUS\))?(?: \(preview only\))?:", description, flags=re.MULTILINE)
    statuses = re.search(r"Valid values for `STATUS`\s+are ((?:\d{3}, )*\d{3}),? and (\d{3})\.", description)
    if not names or statuses is None:
        raise ValueError("the bulleted list of actions or the valid STATUS values are gone")
    codes = [*statuses.group(1).split(", "), statuses.group(2)]
    values: list[str] = []
    for name, takes_status in names:
        if takes_status:
            values.extend(f"{name}({code})" for code in codes)
        else:
            values.append(name)
    listed = ", ".join(name + status for name, status in names)
    return f"actions: {listed}; {statuses.group(0)}", values


# (api, schema, field) -> extractor. The schema names are the ones _schemas gives inline objects.
DESCRIBED: dict[tuple[str, str, str], Callable[[str], tuple[str, list[str]]]] = {
    ("storage", "Bucket.iamConfiguration", "publicAccessPrevention"): _quoted,
    ("storage", "Bucket", "storageClass"): _values_include,
    ("storage", "Bucket.lifecycle.rule.action", "type"): _only_supported,
    ("compute", "SecurityPolicyRule", "action"): _armor_actions,
}


def _property(document: dict[str, Any], schema: str, field: str) -> dict[str, Any]:
    """The raw property of `schema.field`, following inline objects (`Bucket.lifecycle.rule.action`)."""
    head, *path = schema.split(".")
    node: dict[str, Any] = document["schemas"][head]
    for step in path:
        node = node["properties"][step]
        if node.get("type") == "array":
            node = node["items"]
    return node["properties"][field]


def _described_enums(documents: dict[str, dict[str, Any]]) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for (api, schema, field), extract in sorted(DESCRIBED.items()):
        prop = _property(documents[api], schema, field)
        if "enum" in prop:
            raise ValueError(f"{api} {schema}.{field} is now a schema enum: drop it from DESCRIBED")
        try:
            text, values = extract(prop.get("description", ""))
        except ValueError as error:
            raise ValueError(f"{api} {schema}.{field}: {error}") from None
        out.setdefault(api, {}).setdefault(schema, {})[field] = {"values": sorted(set(values)), "text": text}
    return out


def build_catalog() -> dict[str, Any]:
    version = metadata.version("google-api-python-client")
    documents = {api: google_discovery.document(api, api_version) for api, (api_version, _) in APIS.items()}
    return {
        "source": {
            "package": f"google-api-python-client {version}",
            "documents": {
                api: {
                    "id": documents[api]["id"],
                    "revision": documents[api]["revision"],
                    "path": f"googleapiclient/discovery_cache/documents/{api}.{api_version}.json",
                    "roots": list(roots),
                }
                for api, (api_version, roots) in APIS.items()
            },
            "described_enums": "values Google documents only in the field's description text, parsed by "
            "tools/refresh_gcp_catalog.py (DESCRIBED); 'text' is the sentence they came from",
        },
        "apis": {api: {"schemas": _schemas(documents[api], roots)} for api, (_, roots) in APIS.items()},
        "described_enums": _described_enums(documents),
    }


def main() -> None:
    catalog = build_catalog()
    OUT.write_text(json.dumps(catalog, sort_keys=True, separators=(",", ":")) + "\n")
    counts = ", ".join(f"{api} {len(body['schemas'])}" for api, body in catalog["apis"].items())
    print(f"wrote {OUT} (schemas: {counts})")


if __name__ == "__main__":
    main()
