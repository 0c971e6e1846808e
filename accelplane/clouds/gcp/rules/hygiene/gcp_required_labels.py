"""AP-GTAG-001 (was AP-TAG-004): labelled GCP resources carry the required labels (owner, cost-centre,
platform, environment).

The GCP twin of AP-TAG-001 (which judges AWS tags only): GCP label keys take lower-case letters,
digits, `_` and `-`, so the platform and environment are `accelplane-platform` and
`accelplane-environment`. A GKE cluster's labels are its `resourceLabels`. Labels the provider adds
from its `defaultLabels` count (pulumi-gcp's `effectiveLabels`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.clouds.gcp.rules.labels import REQUIRED_LABELS, label, labels_prop
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    missing = [key for key in REQUIRED_LABELS if not label(resource, key)]
    if missing:
        yield f"missing required labels ({labels_prop(resource)}): {', '.join(missing)}"


RULE = Rule(
    id="AP-GTAG-001",
    aliases=("AP-TAG-004",),  # its id before GCP rules had their own families
    name="gcp-required-labels",
    description="Checks whether labelled GCP resources carry owner, cost-centre, accelplane-platform and "
    "accelplane-environment labels.",
    family=Family.hygiene,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Pass the platform's labels to the resource (a GKE cluster's resource_labels).",
    resource_types=t.GCP_LABELLED,
    check=check,
    categories=("cost", "ownership"),
    references=("https://cloud.google.com/resource-manager/docs/labels-overview#requirements",),
)
