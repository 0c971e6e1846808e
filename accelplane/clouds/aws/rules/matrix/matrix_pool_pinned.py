"""AP-VER-005: accelerator node groups pin their software: a profile, version labels and an AMI release.

Without `releaseVersion` EKS picks the latest AMI (and with it a new driver) at every node group
update; without profile labels the matrix rules have nothing to judge.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.matrix.labels import PROFILE_LABEL, accelerator, node_labels, versions
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if accelerator(resource) is None:
        return
    if not as_str(node_labels(resource).get(PROFILE_LABEL)):
        yield "accelerator node group has no software profile label (accelplane.io/profile)"
    if not versions(resource):
        yield "accelerator node group carries no versions.accelplane.io/* labels"
    if not as_str(resource.get("releaseVersion")):
        yield "accelerator node group does not pin the AMI release (releaseVersion): the driver floats"


RULE = Rule(
    id="AP-VER-005",
    name="matrix-pool-pinned",
    description="Checks whether accelerator node groups carry a software profile, version labels and a pinned "
    "AMI release version.",
    family=Family.matrix,
    severity=Severity.medium,
    enforcement=Enforcement.mandatory,
    remediation="Give the pool a software_profile with ami_release_version.",
    resource_types=frozenset({t.EKS_NODE_GROUP}),
    check=check,
    categories=("version-matrix", "reproducibility"),
    fix_field="software_profile",  # the pool's or group's choice of profile: where its versions are picked
)
