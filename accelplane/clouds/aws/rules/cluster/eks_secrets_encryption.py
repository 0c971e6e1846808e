"""AP-EKS-002: Kubernetes secrets are envelope-encrypted with a customer-managed KMS key."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    configs = as_list(resource.get("encryptionConfig"))
    covered = [c for c in configs if "secrets" in [as_str(r) for r in as_list(get(c, "resources"))]]
    if not covered:
        yield "Kubernetes secrets are not envelope-encrypted (no encryptionConfig for secrets)"
    elif not any(as_str(get(c, "provider", "keyArn")) for c in covered):
        yield "encryptionConfig for secrets names no KMS key"


RULE = Rule(
    id="AP-EKS-002",
    name="eks-secrets-encryption",
    description="Checks whether the cluster encrypts Kubernetes secrets with a KMS key.",
    family=Family.cluster,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set encryption_config {provider.key_arn: <key>, resources: [secrets]}.",
    resource_types=frozenset({t.EKS_CLUSTER}),
    check=check,
    categories=("encryption",),
)
