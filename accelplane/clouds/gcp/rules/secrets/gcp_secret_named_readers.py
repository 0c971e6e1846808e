"""AP-GSM-002: a secret is readable only by named workloads, never by the public or a group of principals.

A Secret Manager IAM grant names single principals: a Workload Identity principal
(`principal://…/subject/ns/<ns>/sa/<ksa>`) or a service account; never `allUsers`,
`allAuthenticatedUsers`, a `principalSet://`, a `group:` or `domain:`, or the project's
owners/editors/viewers. Readers need `roles/secretmanager.secretAccessor` and nothing more.
Twin of AP-SM-002.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import grants, is_public, is_workload_principal
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

READER_ROLE = "roles/secretmanager.secretAccessor"


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for grant in grants(resource):
        for member in grant.members:
            if is_public(member):
                yield grant.at(f"grants {grant.role} to {member}: anyone can read the secret")
            elif member.startswith("principalSet://") or not is_workload_principal(member):
                yield grant.at(f"grants {grant.role} to {member}: name each reader's own principal")
            elif grant.role != READER_ROLE:
                yield grant.at(f"grants {grant.role} to {member}: readers need {READER_ROLE} only")


RULE = Rule(
    id="AP-GSM-002",
    name="gcp-secret-named-readers",
    description="Checks whether a Secret Manager IAM grant gives roles/secretmanager.secretAccessor to named "
    "workload principals only.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Bind roles/secretmanager.secretAccessor on the secret to the principal:// of each workload that "
    "lists it.",
    resource_types=t.GCP_SECRET_IAM_TYPES,
    check=check,
    categories=("least-privilege",),
    references=("https://cloud.google.com/secret-manager/docs/access-control",),
)
