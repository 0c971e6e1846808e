"""AP-LB-020: a public ALB in prod authenticates clients before a request reaches a model server.

An allow-list of source ranges (`allowed_cidrs`) is not an identity: anyone inside a range can call a
paid model. A listener authenticates when it verifies client certificates (mutual TLS in `verify`
mode) or when every forward, its default action's and each rule's, comes after an authenticating
action (`jwt-validation` for machine clients, `authenticate-oidc`/`authenticate-cognito` for people).
Plain-HTTP listeners only redirect (AP-LB-002). Judged in prod; waive with a reason where an endpoint
is public by design.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.clouds.aws.rules.load_balancer.listeners import forwards_unauthenticated, mutual_tls_mode, protocol
from accelplane.clouds.aws.rules.load_balancer.web_acls import is_public
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Scope, Severity
from accelplane.rules.view import Resource, as_list, get


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if graph.environment != "prod" or protocol(resource) != "HTTPS" or mutual_tls_mode(resource) == "verify":
        return
    balancers = graph.ref(resource, "loadBalancerArn", *t.LOAD_BALANCERS)
    if balancers and not any(is_public(balancer) for balancer in balancers):
        return
    unauthenticated = ["its default action"] if forwards_unauthenticated(resource.get("defaultActions")) else []
    for rule in graph.referring(resource, "listenerArn", *t.LISTENER_RULES):
        if forwards_unauthenticated(rule.get("actions")):
            patterns = [value for condition in as_list(rule.get("conditions"))
                        for value in as_list(get(condition, "pathPattern", "values"))]
            unauthenticated.append(f"rule {rule.name} ({', '.join(map(str, patterns)) or 'no path'})")
    if unauthenticated:
        yield (f"public HTTPS listener in prod forwards to model servers without authenticating clients: "
               f"{'; '.join(unauthenticated)} (no jwt-validation before the forward, no mutual TLS in verify mode)")


RULE = Rule(
    id="AP-LB-020",
    name="lb-clients-authenticated",
    description="Checks whether a public HTTPS listener in prod authenticates clients (mutual TLS in verify mode, "
    "or an authenticating action before every forward).",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Declare inference_endpoint.client_auth: id_tokens (the ALB validates callers' ID tokens) and/or "
    "mutual_tls (client certificates from a CA bundle), or waive with the reason the endpoint is public.",
    resource_types=t.LISTENERS,
    check=check,
    scope=Scope.stack,
    categories=("authentication", "network-exposure"),
    references=("https://docs.aws.amazon.com/elasticloadbalancing/latest/application/listener-verify-jwt.html",
                "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/mutual-authentication.html"),
    fix_field="client_auth",
    reads=t.LISTENER_RULES | t.LOAD_BALANCERS,
)
