"""AP-S3-001: a public access block sets all four flags."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool

FLAGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    off = [flag for flag in FLAGS if as_bool(resource.get(flag)) is not True]
    if off:
        yield f"public access block leaves {', '.join(off)} off"


RULE = Rule(
    id="AP-S3-001",
    name="s3-public-access-block-all-flags",
    description="Checks whether an S3 public access block sets blockPublicAcls, blockPublicPolicy, "
    "ignorePublicAcls and restrictPublicBuckets.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Set all four flags to true.",
    resource_types=frozenset({t.S3_PUBLIC_ACCESS_BLOCK, t.S3_ACCOUNT_PUBLIC_ACCESS_BLOCK}),
    check=check,
    categories=("data-protection",),
)
