"""AP-LB-021: mutual TLS in passthrough mode is flagged: the ALB verifies nothing.

In `passthrough` mode the ALB accepts any client certificate and only forwards it to the target in
`X-Amzn-Mtls-Clientcert` headers: unless every backend verifies the chain itself, a forged
certificate is as good as a real one. `verify` makes the ALB refuse the handshake instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.listeners import mutual_tls_mode
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if mutual_tls_mode(resource) == "passthrough":
        yield ("mutual TLS in passthrough mode: the load balancer forwards any client certificate unverified; the "
               "model servers must verify it themselves")


RULE = Rule(
    id="AP-LB-021",
    name="lb-mtls-passthrough",
    description="Checks whether a listener's mutual TLS is in passthrough mode (client certificates not verified by "
    "the load balancer).",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.advisory,
    remediation="Set client_auth.mutual_tls.mode: verify (the ALB checks certificates against the trust store), or "
    "waive with how the backends verify the forwarded certificate.",
    resource_types=t.LISTENERS,
    check=check,
    categories=("authentication",),
    references=("https://docs.aws.amazon.com/elasticloadbalancing/latest/application/mutual-authentication.html",),
    fix_field="client_auth",
)
