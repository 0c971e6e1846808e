"""AP-S3-008: no canned ACL or grant opens a bucket to everyone or to every AWS account."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str, get

PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read"})
_PUBLIC_GROUPS = ("http://acs.amazonaws.com/groups/global/AllUsers",
                  "http://acs.amazonaws.com/groups/global/AuthenticatedUsers")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    acl = as_str(resource.get("acl"))
    if acl in PUBLIC_ACLS:
        yield f"canned ACL {acl} makes the bucket public"
    for grant in as_list(resource.get("accessControlPolicy", "grants")) + as_list(resource.get("grants")):
        uri = as_str(get(grant, "grantee", "uri")) or as_str(get(grant, "uri"))
        if uri in _PUBLIC_GROUPS:
            yield f"ACL grant to {uri.rsplit('/', 1)[-1]}"


RULE = Rule(
    id="AP-S3-008",
    name="s3-no-public-acl",
    description="Checks whether a bucket ACL grants access to AllUsers or AuthenticatedUsers.",
    family=Family.storage,
    severity=Severity.critical,
    enforcement=Enforcement.mandatory,
    remediation="Remove the ACL; set object ownership to BucketOwnerEnforced so ACLs are ignored.",
    resource_types=frozenset({*t.S3_BUCKETS, t.S3_ACL, t.S3_ACL_V2}),
    check=check,
    categories=("data-protection",),
)
