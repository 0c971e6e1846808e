"""AP-TAG-002: in prod, stateful resources (buckets, keys, secrets; AWS and GCP) are `protect`ed from deletion.

A key scheduled for deletion takes every object encrypted with it; a deleted bucket takes the
checkpoints. `protect` makes `pulumi destroy` and a replacing change stop and ask.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.rules import types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource

STATEFUL = frozenset({*t.S3_BUCKETS, t.KMS_KEY, t.SECRET, t.EBS_VOLUME, "aws:efs/fileSystem:FileSystem",
                      "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:rds/instance:Instance",
                      "aws:rds/cluster:Cluster", "aws:dynamodb/table:Table",
                      # GCP: a destroyed crypto key version takes the buckets' and Secrets' data with it.
                      t.GCS_BUCKET, t.GCP_KMS_CRYPTO_KEY, t.GCP_SECRET})


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment == "prod" and not resource.protect:
        yield "stateful resource in prod is not protected (protect=True)"


RULE = Rule(
    id="AP-TAG-002",
    name="prod-stateful-protected",
    description="Checks whether buckets, KMS keys and secrets in a prod stack have protect set.",
    family=Family.hygiene,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Create the resource with ResourceOptions(protect=True) in prod.",
    resource_types=STATEFUL,
    check=check,
    categories=("resilience",),
)
