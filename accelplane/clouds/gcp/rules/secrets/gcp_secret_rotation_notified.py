"""AP-GSM-004: a Secret Manager rotation schedule notifies a topic, at a period Google accepts.

"Secret.topics must be set to configure rotation" (the v1 API's Rotation): a schedule without a topic
is refused when the secret is written, and one with a topic nobody reads rotates nothing. The period
is a duration in seconds (`"2592000s"`), at least 3600s and at most 3153600000s (100 years), and
`nextRotationTime` must be set with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get, mapping

_DURATION = re.compile(r"^(\d+)s$")
MIN_PERIOD_SECONDS = 3600
MAX_PERIOD_SECONDS = 3153600000


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    rotation = mapping(resource.get("rotation"))
    period = as_str(get(rotation, "rotationPeriod"))
    if not period and not as_str(get(rotation, "nextRotationTime")):
        return
    if not [topic for topic in as_list(resource.get("topics")) if as_str(get(topic, "name"))]:
        yield "rotation schedule without topics: Secret Manager has nowhere to send the rotation notification"
    if period:
        parsed = _DURATION.match(period)
        if parsed is None:
            yield f"rotationPeriod {period!r} is not a duration in whole seconds (e.g. \"2592000s\")"
        elif not MIN_PERIOD_SECONDS <= int(parsed.group(1)) <= MAX_PERIOD_SECONDS:
            yield f"rotationPeriod {period} is outside 3600s to 3153600000s"
        if not as_str(get(rotation, "nextRotationTime")):
            yield "rotationPeriod without nextRotationTime: Secret Manager needs both"


RULE = Rule(
    id="AP-GSM-004",
    name="gcp-secret-rotation-notified",
    description="Checks whether a Secret Manager secret with a rotation schedule names a topic for its "
    "notifications, with a period between 3600s and 3153600000s and a next rotation time.",
    family=Family.secrets,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set topics to the rotation topic Secret Manager's service agent may publish on, and "
    "rotation.rotation_period with rotation.next_rotation_time.",
    resource_types=frozenset({t.GCP_SECRET}),
    check=check,
    categories=("credential-rotation",),
    references=("https://cloud.google.com/secret-manager/docs/secret-rotation",),
)
