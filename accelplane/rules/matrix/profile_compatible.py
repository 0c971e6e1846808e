"""AP-VER-001: every accelerator node pool's software stack is not incompatible in the version matrix."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import Graph
from accelplane.rules.matrix.labels import PROFILE_LABEL, judge, matrix_stack, node_labels
from accelplane.rules.model import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: Graph) -> Iterator[str]:
    stack = matrix_stack(resource)
    if stack is None:
        return
    profile = as_str(node_labels(resource).get(PROFILE_LABEL)) or "?"
    verdict, findings = judge(stack, graph.as_of)
    if verdict == "incompatible":
        for rule, finding_verdict, message in findings:
            if finding_verdict == "incompatible":
                yield f"profile {profile} for {stack['accelerator']}: {rule}: {message}"


RULE = Rule(
    id="AP-VER-001",
    name="matrix-profile-compatible",
    description="Checks whether each accelerator node pool's pinned versions pass the version matrix for its "
    "accelerator and instance type.",
    family=Family.matrix,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Change the software profile to versions the matrix lists as compatible "
    "(`accelplane matrix check` explains each fact and its source).",
    resource_types=frozenset({t.EKS_NODE_GROUP}),
    check=check,
    categories=("version-matrix",),
)
