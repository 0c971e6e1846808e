"""AP-VER-002: node pools' and bare-metal host groups' software stacks that run only under a
limitation, or carry a lifecycle flag (driver branch past end of life), are shown. With `--strict`
they block like AP-VER-001."""

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
    shown = ("warn",) if strict(resource) else ("conditional", "warn")  # strict groups: AP-VER-001 blocks
    if verdict in ("conditional", "warn"):
        for rule, finding_verdict, message in findings:
            if finding_verdict in shown:
                yield f"profile {profile} for {stack['accelerator']} is {finding_verdict}: {rule}: {message}"


RULE = Rule(
    id="AP-VER-002",
    name="matrix-profile-conditional",
    description="Checks whether a node pool's pinned versions work only under a documented limitation or carry "
    "a lifecycle warning in the version matrix.",
    family=Family.matrix,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Move to versions the matrix lists as plainly compatible, or accept the limitation with a waiver.",
    resource_types=frozenset({*POOL_TYPES, t.BARE_METAL_GROUP}),
    check=check,
    categories=("version-matrix",),
    fix_field="software_profile",  # the pool's or group's choice of profile: where its versions are picked
)
