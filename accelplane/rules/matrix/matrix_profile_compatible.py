"""AP-VER-001: no accelerator node pool or bare-metal host group runs a software stack the version
matrix calls incompatible (or conditional, for groups under `bare_metal.strict_matrix`)."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.matrix.labels import POOL_TYPES, judge, matrix_stack, profile_name, strict
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    stack = matrix_stack(resource)
    if stack is None:
        return
    profile = profile_name(resource)
    verdict, findings = judge(stack, graph.as_of)
    # `bare_metal.strict_matrix` makes a conditional verdict block a group, as `nodes` enforces it.
    blocking = ("incompatible", "conditional") if strict(resource) else ("incompatible",)
    if verdict in blocking:
        for rule, finding_verdict, message in findings:
            if finding_verdict in blocking:
                yield f"profile {profile} for {stack['accelerator']}: {rule}: {message}"


RULE = Rule(
    id="AP-VER-001",
    name="matrix-profile-compatible",
    description="Checks whether each accelerator node pool's and bare-metal host group's pinned versions pass "
    "the version matrix for its accelerator (and instance type).",
    family=Family.matrix,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Change the software profile to versions the matrix lists as compatible "
    "(`accelplane matrix check` explains each fact and its source).",
    resource_types=frozenset({*POOL_TYPES, t.BARE_METAL_GROUP}),
    check=check,
    categories=("version-matrix",),
    fix_field="software_profile",  # the pool's or group's choice of profile: where its versions are picked
)
