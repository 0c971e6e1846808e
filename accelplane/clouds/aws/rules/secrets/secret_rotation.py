"""AP-SM-003: a Secrets Manager secret rotates on a schedule.

A secret that never rotates stays valid as long as whoever copied it keeps the copy. Rotation is a
`SecretRotation` on the secret with rotation rules (every N days, or a schedule expression) and the
function that makes the new value. Advisory: a third-party token (a model hub's, a registry's) often
rotates only by hand at its issuer; waive it with who rotates it and how often.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_bool


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    rotations = [
        rotation for rotation in graph.referring(resource, "secretId", t.SECRET_ROTATION)
        if as_bool(rotation.get("rotationEnabled")) is not False
    ]
    if not rotations:
        yield "secret never rotates: no rotation schedule"
        return
    for rotation in rotations:
        rules = rotation.get("rotationRules") or {}
        if not isinstance(rules, dict) or not (rules.get("automaticallyAfterDays") or rules.get("scheduleExpression")):
            yield "rotation has no schedule (rotation_rules with automatically_after_days or schedule_expression)"
        if not rotation.get("rotationLambdaArn"):
            yield "rotation names no rotation function"


RULE = Rule(
    id="AP-SM-003",
    name="secret-rotation",
    description="Checks whether a Secrets Manager secret has a rotation schedule and a rotation function.",
    family=Family.secrets,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Declare rotation_days and rotation_function on the secret, or waive the rule with who rotates the "
    "value and how often.",
    resource_types=frozenset({t.SECRET}),
    check=check,
    scope=Scope.stack,
    categories=("credential-rotation",),
    references=("https://docs.aws.amazon.com/secretsmanager/latest/userguide/rotating-secrets.html",),
)
