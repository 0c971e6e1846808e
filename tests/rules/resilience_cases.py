"""Fixtures of the endpoint-resilience rules (rate limits, health checks, timeouts, retries) and of pod
hardening, both clouds, in the wire format the engines send."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as aws_types
from accelplane.clouds.gcp import resource_types as gcp_types
from tests.rules.cases import PROBES, PROD_TAGS, TAGS, Case, container, deployment, load_balancer, neuron_monitor, res
from tests.rules.gcp_cases import (
    DEFAULT_DENY,
    LABELS,
    allow_rule,
    backend_policy,
    gateway,
    health_policy,
    http_route,
)

ACL_ARN = "arn:aws:wafv2:us-west-2:123456789012:regional/webacl/acme/1"
VISIBILITY = {"cloudwatchMetricsEnabled": True, "metricName": "m", "sampledRequestsEnabled": True}


def rate_rule(action: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": "rate-chat", "priority": 100,
            "action": action or {"block": {"customResponse": {"responseCode": 429}}},
            "statement": {"rateBasedStatement": {"limit": 600, "evaluationWindowSec": 60, "aggregateKeyType": "IP"}},
            "visibilityConfig": VISIBILITY}


MANAGED = {"name": "AWSManagedRulesKnownBadInputsRuleSet", "priority": 10, "overrideAction": {"none": {}},
           "statement": {"managedRuleGroupStatement": {"name": "AWSManagedRulesKnownBadInputsRuleSet",
                                                       "vendorName": "AWS"}}, "visibilityConfig": VISIBILITY}


def web_acl(*rules: dict[str, Any], tags: dict[str, str] = PROD_TAGS) -> Any:
    return res(aws_types.WAF_WEB_ACL, "acl", {"scope": "REGIONAL", "defaultAction": {"allow": {}}, "rules": list(rules),
                                      "visibilityConfig": VISIBILITY, "tags": tags}, id=ACL_ARN)


def association(load_balancer_name: str = "alb") -> Any:
    return res(aws_types.WAF_WEB_ACL_ASSOCIATION, f"{load_balancer_name}-waf",
               {"resourceArn": f"id-{load_balancer_name}", "webAclArn": ACL_ARN})


def forwarding(default_group: str, rule_group: str) -> list[Any]:
    """An HTTPS listener of `alb` whose default action forwards to `default_group`, and a listener rule
    forwarding by weight to `rule_group`, with both target groups."""
    https = res(aws_types.LISTENER, "https", {
        "loadBalancerArn": "id-alb", "port": 443, "protocol": "HTTPS", "tags": PROD_TAGS,
        "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06",
        "defaultActions": [{"type": "forward", "targetGroupArn": f"id-{default_group}"}]})
    rule = res("aws:lb/listenerRule:ListenerRule", "rule-canary", {
        "listenerArn": "id-https", "priority": 1, "tags": PROD_TAGS,
        "actions": [{"type": "forward", "forward": {"targetGroups": [{"arn": f"id-{rule_group}", "weight": 100}]}}]})
    return [https, rule, target_group(default_group), target_group(rule_group)]


def service_target_group(name: str, service: str) -> Any:
    group = target_group(name)
    return res(group.type, name, {**group.props, "tags": {**TAGS, "accelplane:service": service}})


def prod_alb(name: str = "alb") -> Any:
    alb = load_balancer(name)
    return res(alb.type, name, {**alb.props, "tags": PROD_TAGS})


def target_group(name: str = "tg", **health: Any) -> Any:
    check = {"enabled": True, "path": "/v1/health", "matcher": "200", "protocol": "HTTP", **health}
    return res(aws_types.TARGET_GROUP, name, {"targetType": "ip", "protocol": "HTTP", "port": 8080, "vpcId": "vpc-1",
                                      "healthCheck": {k: v for k, v in check.items() if v is not None},
                                      "tags": TAGS})


def throttle(priority: int = 500, *, preview: bool = False) -> dict[str, Any]:
    return {"action": "throttle", "priority": priority, "preview": preview,
            "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["198.51.100.0/24"]}},
            "rateLimitOptions": {"conformAction": "allow", "exceedAction": "deny(429)", "enforceOnKey": "IP",
                                 "rateLimitThreshold": {"count": 300, "intervalSec": 60}}}


def k8s_service(name: str, object_name: str, namespace: str = "inference") -> Any:
    """A Kubernetes Service (logical `name`, object `namespace/object_name`)."""
    return res("kubernetes:core/v1:Service", name, {"metadata": {"name": object_name, "namespace": namespace}})


def armor(name: str, *rules: dict[str, Any]) -> Any:
    return res(gcp_types.GCP_SECURITY_POLICY, name, {"name": name, "type": "CLOUD_ARMOR", "labels": {
        **LABELS, "accelplane-environment": "prod"}, "rules": [*rules, allow_rule(1000, "198.51.100.0/24"),
                                                               DEFAULT_DENY]})


def route(name: str, service: str, rule_extra: dict[str, Any] | None = None) -> Any:
    found = http_route(name, "inference", service)
    rules = [{**found.props["spec"]["rules"][0], **(rule_extra or {})}]
    return res(found.type, found.name, {**found.props, "spec": {**found.props["spec"], "rules": rules}})


def timed_policy(service: str, security_policy: str, timeout: int | None = None) -> Any:
    found = backend_policy(service, security_policy)
    default = {**found.props["spec"]["default"], **({"timeoutSec": timeout} if timeout else {})}
    return res(found.type, found.name, {**found.props, "spec": {**found.props["spec"], "default": default}})


HARDENED_CONTAINER = {"securityContext": {"readOnlyRootFilesystem": True, "allowPrivilegeEscalation": False,
                                          "runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001,
                                          "capabilities": {"drop": ["ALL"]},
                                          "seccompProfile": {"type": "RuntimeDefault"}}}
HARDENED_POD = {"automountServiceAccountToken": False,
                "securityContext": {"runAsNonRoot": True, "runAsUser": 10001, "runAsGroup": 10001, "fsGroup": 10001,
                                    "seccompProfile": {"type": "RuntimeDefault"}}}
INFERENCE_LABELS = {"accelplane.io/purpose": "inference", "app.kubernetes.io/part-of": "accelplane"}


def server(name: str = "serve", container_props: dict[str, Any] | None = None, **pod: Any) -> Any:
    props = HARDENED_CONTAINER if container_props is None else container_props
    return deployment(name, container("server", **props, **PROBES),
                      labels=INFERENCE_LABELS, namespace="inference", **{**HARDENED_POD, **pod})


RESILIENCE_CASES: dict[str, Case] = {
    # A dev ALB may go without while its limit is sized; prod's has a rate-based rule. The finding is each
    # target group the ALB forwards to (its service's rate_limit fixes it): the listener's default action
    # and a listener rule's weighted forward; without them in the graph, the ALB's (test_rules_resilience.py).
    "AP-LB-010": Case(
        passing=[prod_alb(), association(), web_acl(MANAGED, rate_rule()), *forwarding("tg", "canary-tg")],
        failing=[prod_alb(), association(), web_acl(MANAGED), *forwarding("tg", "canary-tg")],
        expect="public load balancer in prod without a rate limit", target="tg", also=("canary-tg",),
        environment="prod"),
    # accelplane names a service's rate rule rate-<service>: the finding is that service's target groups.
    "AP-LB-011": Case(
        passing=[web_acl(rate_rule()), service_target_group("chat-tg", "chat"), service_target_group("other-tg", "x")],
        failing=[web_acl(rate_rule({"count": {}})), service_target_group("chat-tg", "chat"),
                 service_target_group("other-tg", "x")],
        expect="rate-based rule rate-chat only counts in prod", target="chat-tg", environment="prod"),
    "AP-LB-012": Case(
        passing=[target_group(), res(aws_types.TARGET_GROUP, "lambda-tg", {"targetType": "lambda", "tags": TAGS})],
        failing=[target_group(matcher=None), target_group("default-path", path=None)],
        expect="health check without an explicit matcher", target="tg", also=("default-path",)),
    # The finding is the unprotected backend Service's (its service's rate_limit fixes it); without
    # the Service in the graph, the Gateway's (tests/rules/test_gcp_rules.py).
    "AP-GLB-010": Case(
        passing=[gateway(), http_route("serve", "inference", "serve"), backend_policy("serve", "acme-serve"),
                 armor("acme-serve", throttle()), k8s_service("serve-service", "serve")],
        failing=[gateway(), http_route("serve", "inference", "serve"), backend_policy("serve", "acme-serve"),
                 armor("acme-serve"), k8s_service("serve-service", "serve")],
        expect="inference/serve of Gateway inference-inference-gateway in prod has no Cloud Armor rate limit",
        target="serve-service", environment="prod"),
    # The finding is each Service whose GCPBackendPolicy names the policy (its rate_limit.mode fixes it).
    "AP-GLB-011": Case(
        passing=[armor("acme-serve", throttle()), backend_policy("serve", "acme-serve"),
                 k8s_service("serve-service", "serve")],
        failing=[armor("acme-serve", throttle(preview=True)), backend_policy("serve", "acme-serve"),
                 k8s_service("serve-service", "serve")],
        expect="throttle rule at priority 500 is preview-only in prod", target="serve-service", environment="prod"),
    "AP-GLB-012": Case(
        passing=[gateway(), route("serve", "serve", {"timeouts": {"request": "120s", "backendRequest": "90s"}}),
                 route("embed", "embed"), timed_policy("embed", "acme-inference", 60)],
        failing=[gateway(), route("serve", "serve"), backend_policy("serve")],
        expect="HTTPRoute inference/serve rule 0 declares no request timeout", target="inference-inference-gateway"),
    "AP-GLB-013": Case(
        passing=[gateway(), http_route("serve", "inference", "serve"), health_policy("serve"), backend_policy("serve")],
        failing=[gateway(), http_route("serve", "inference", "serve", "canary"), health_policy("serve", None),
                 backend_policy("serve"), backend_policy("canary")],
        expect="inference/serve's HealthCheckPolicy names no requestPath", target="inference-inference-gateway"),
    "AP-GLB-014": Case(
        passing=[route("serve", "serve", {"retry": {"attempts": 2, "codes": [503]},
                                          "timeouts": {"request": "120s", "backendRequest": "40s"}})],
        failing=[route("serve", "serve", {"retry": {"attempts": 2, "codes": [503]},
                                          "timeouts": {"request": "120s"}})],
        expect="retries without a per-try timeout", target="inference-serve-httproute"),
    "AP-K8S-009": Case(
        # The platform's privileged device monitor is exempt by identity (its reason is in the rule's data).
        passing=[server(), neuron_monitor()],
        failing=[server(container_props={**HARDENED_CONTAINER, "securityContext": {
            **HARDENED_CONTAINER["securityContext"], "readOnlyRootFilesystem": False}}),
                 server("token", automountServiceAccountToken=True),
                 server("low-uid", container_props={**HARDENED_CONTAINER, "securityContext": {
                     **HARDENED_CONTAINER["securityContext"], "runAsUser": 1000}}),
                 server("no-pod-context", securityContext=None)],
        expect="the root file system is writable", target="serve", also=("token", "low-uid", "no-pod-context")),
}
