"""AP-LB-022: the CA bundle a mutual-TLS trust store is built from cannot be changed behind the
platform's back.

CA certificates are public; who may replace them is what matters: whoever overwrites the bundle
object decides which client certificates the endpoint trusts at the next update of the trust store.
A finding when the trust store takes the object unpinned (no `ca_bundle_version`: the next `pulumi
up` loads whatever is there), and for each identity policy of the stack that may write the object
(`s3:PutObject` on a resource covering it): the platform's workloads and nodes are not its admins.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.iam.document import identity_documents, matches, statements
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import About, Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str | About]:
    bucket = as_str(resource.get("caCertificatesBundleS3Bucket"))
    key = as_str(resource.get("caCertificatesBundleS3Key"))
    bundle = f"s3://{bucket}/{key}"
    if not as_str(resource.get("caCertificatesBundleS3ObjectVersion")):
        yield (f"the trust store reads {bundle} at whatever version is there at each update: pin the object "
               "version (ca_bundle_version), so that an overwrite changes nothing until the stack does")
    arn = f"arn:aws:s3:::{bucket}/{key}"
    for writer in graph.of_type(*t.IDENTITY_POLICY_TYPES):
        for where, document in identity_documents(writer):
            if any(statement.allows("s3:PutObject") and not statement.not_resources
                   and any(matches(pattern, arn) for pattern in statement.resources)
                   for statement in statements(document)):
                yield About(writer, f"{writer.name} ({where}) may overwrite {bundle}, the CA bundle trust store "
                                    f"{resource.name} decides client certificates with")


RULE = Rule(
    id="AP-LB-022",
    name="lb-trust-bundle-protected",
    description="Checks whether a mutual-TLS trust store's CA bundle is pinned to an object version and writable by "
    "no identity policy of the stack.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Keep the bundle in a versioned bucket only the platform's admins write; declare "
    "client_auth.mutual_tls.ca_bundle_version; grant no workload s3:PutObject on it.",
    resource_types=frozenset({t.TRUST_STORE}),
    check=check,
    scope=Scope.stack,
    categories=("authentication", "least-privilege"),
    references=("https://docs.aws.amazon.com/elasticloadbalancing/latest/application/mutual-authentication.html",),
    fix_field="client_auth",
    reads=t.IDENTITY_POLICY_TYPES,
)
