"""AP-GIAM-001: no GCP primitive (basic) roles: roles/owner, roles/editor, roles/viewer.

Basic roles predate IAM and carry thousands of permissions across every service (roles/editor can
change almost any resource, roles/viewer reads every bucket's metadata and most configuration);
Google recommends predefined or custom roles in production. Judged on every IAM member, binding
and policy resource, whatever it is granted on.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import PRIMITIVE_ROLES, grants
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for grant in grants(resource):
        if grant.role in PRIMITIVE_ROLES:
            yield grant.at(f"grants the basic role {grant.role} to {', '.join(grant.members) or 'no member'}")


RULE = Rule(
    id="AP-GIAM-001",
    name="gcp-iam-no-primitive-roles",
    description="Checks whether a GCP IAM member, binding or policy grants a basic role (roles/owner, roles/editor, "
    "roles/viewer).",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Grant the predefined role with the permissions the principal needs (e.g. "
    "roles/storage.objectViewer on one bucket).",
    resource_types=t.GCP_IAM_TYPES,
    check=check,
    categories=("least-privilege",),
    references=("https://cloud.google.com/iam/docs/roles-overview#basic",),
)
