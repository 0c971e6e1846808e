"""AP-GSM-003: a Secret Manager secret has a rotation schedule.

Secret Manager rotates nothing itself: at the secret's `rotation.nextRotationTime`, then every
`rotation.rotationPeriod`, it publishes a SECRET_ROTATE message to the secret's topics, and the
team's subscriber adds the new version. Without a schedule nothing ever asks for a new value.
Advisory, as its twin AP-SM-003: a third-party token often rotates only by hand at its issuer.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str, get, mapping


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    rotation = mapping(resource.get("rotation"))
    if not as_str(get(rotation, "nextRotationTime")) and not as_str(get(rotation, "rotationPeriod")):
        yield "secret never rotates: no rotation schedule"


RULE = Rule(
    id="AP-GSM-003",
    name="gcp-secret-rotation",
    description="Checks whether a Secret Manager secret sets a rotation schedule (rotation.next_rotation_time, "
    "rotation.rotation_period).",
    family=Family.secrets,
    severity=Severity.medium,
    enforcement=Enforcement.advisory,
    remediation="Declare rotation_days and first_rotation on the secret, or waive the rule with who rotates the "
    "value and how often.",
    resource_types=frozenset({t.GCP_SECRET}),
    check=check,
    categories=("credential-rotation",),
    references=("https://cloud.google.com/secret-manager/docs/secret-rotation",),
)
