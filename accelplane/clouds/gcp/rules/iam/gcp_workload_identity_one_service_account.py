"""AP-GIAM-005: a Workload Identity grant names exactly one Kubernetes service account.

`principal://iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/<project>.svc.id.goog/subject/ns/<ns>/sa/<ksa>`
(or `serviceAccount:<project>.svc.id.goog[<ns>/<ksa>]`) is one service account in one namespace. A
`principalSet://` of the pool is every service account of a namespace, of a cluster or of every
cluster in the project: any pod there gets the role. Twin of AP-IAM-006.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.iam.gcp_grants import grants, workload_identity_problem
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for grant in grants(resource):
        for member in grant.members:
            problem = workload_identity_problem(member)
            if problem:
                yield grant.at(f"{grant.role}: {problem}")


RULE = Rule(
    id="AP-GIAM-005",
    name="gcp-workload-identity-one-service-account",
    description="Checks whether every Workload Identity member of a GCP IAM grant names one Kubernetes service "
    "account in one namespace, never a principal set of the pool.",
    family=Family.iam,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use principal://iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/"
    "<project>.svc.id.goog/subject/ns/<namespace>/sa/<service account>.",
    resource_types=t.GCP_IAM_TYPES,
    check=check,
    categories=("least-privilege", "kubernetes"),
    references=("https://cloud.google.com/kubernetes-engine/docs/concepts/workload-identity#principal-identifiers",),
)
