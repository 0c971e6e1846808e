"""AP-IAM-003: no identity policy allows a known privilege-escalation path on unrestricted resources.

Paths are Rhino Security Labs' list as maintained in cloudsplaining (e.g. `iam:PassRole` on `*`
with `ec2:RunInstances`, `iam:CreatePolicyVersion`, `iam:PutRolePolicy`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.analysis import escalation_paths
from accelplane.clouds.aws.rules.iam.document import identity_documents
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, document in identity_documents(resource):
        for path, actions in escalation_paths(document):
            yield f"{where}: allows privilege escalation path {path} ({' + '.join(actions)}) on unrestricted resources"


RULE = Rule(
    id="AP-IAM-003",
    name="iam-no-privilege-escalation",
    description="Checks whether an IAM identity policy allows a known privilege-escalation combination of actions.",
    family=Family.iam,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Remove the permission-management actions, or scope them to named ARNs with conditions "
    "(e.g. iam:PassRole on one role with iam:PassedToService).",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("least-privilege", "privilege-escalation"),
    references=("https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/",),
)
