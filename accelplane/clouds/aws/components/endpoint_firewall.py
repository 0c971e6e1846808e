"""`EndpointFirewall`: the regional AWS WAF web ACL in front of the inference ALB.

Per exposed service with a `rate_limit`, a rate-based rule: requests per `window_seconds` counted per
client (source IP, the first X-Forwarded-For address, or a header's value) over the service's paths
(a scope-down statement: its path prefix, minus the longer prefixes other services own, minus its
exempt paths), answering 429 (`block` with a custom response) or only counting (`count`, sizing a
limit outside prod). Per service with `max_request_body_bytes`, a size constraint answering 413
(bodies beyond the ALB's 8 KB inspection limit match too: oversize handling MATCH). Then the AWS
managed rule groups the endpoint names. The default action allows: the security group already
admits only `allowed_cidrs`.

Logging goes to a CloudWatch log group named `aws-waf-logs-…` (the prefix WAF requires), with the
Authorization header redacted: API keys and bearer tokens never reach a log.

Shapes: https://docs.aws.amazon.com/waf/latest/APIReference/API_CreateWebACL.html (the rules are
checked against botocore's wafv2 model in the tests), logging:
https://docs.aws.amazon.com/waf/latest/developerguide/logging-cloudwatchlogs.html
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_aws as aws

if TYPE_CHECKING:  # annotations only: pulumi_aws.wafv2 is a large module, loaded when a web ACL is declared
    from pulumi_aws.wafv2 import WebAclVisibilityConfigArgsDict

from accelplane.clouds.aws.endpoint_tags import SERVICE_TAG
from accelplane.declaration import EnforcementMode, RateLimit, RateLimitKey

LOG_GROUP_PREFIX = "aws-waf-logs-"
LOG_RETENTION_DAYS = 90
REDACTED_HEADER = "authorization"
# Rule priorities: body limits first, then the managed groups, then the rate limits.
BODY_PRIORITY = 1
MANAGED_PRIORITY = 10
RATE_PRIORITY = 100
RATE_LIMITED_STATUS = 429
TOO_LARGE_STATUS = 413
_KEYS = {RateLimitKey.source_ip: "IP", RateLimitKey.forwarded_ip: "FORWARDED_IP", RateLimitKey.header: "CUSTOM_KEYS"}


@dataclass(frozen=True)
class ProtectedRoute:
    service: str
    path_prefix: str
    rate_limit: RateLimit | None
    max_request_body_bytes: int | None


@dataclass(frozen=True)
class EndpointFirewallArgs:
    load_balancer_arn: pulumi.Input[str]
    routes: Sequence[ProtectedRoute]
    managed_rule_groups: Sequence[str]
    tags: Mapping[str, str]


def _visibility(metric: str) -> WebAclVisibilityConfigArgsDict:
    return {"cloudwatch_metrics_enabled": True, "metric_name": metric[:128], "sampled_requests_enabled": True}


def _starts_with(prefix: str) -> dict[str, Any]:
    return {"byte_match_statement": {
        "search_string": prefix, "positional_constraint": "STARTS_WITH", "field_to_match": {"uri_path": {}},
        "text_transformations": [{"priority": 0, "type": "NONE"}],
    }}


def scope_down(route: ProtectedRoute, all_prefixes: Sequence[str]) -> dict[str, Any] | None:
    """The requests a service's rate rule counts: its prefix, not a longer prefix another service owns
    (the ALB sends those elsewhere), not an exempt path. None: every request."""
    statements: list[dict[str, Any]] = []
    if route.path_prefix != "/":
        statements.append(_starts_with(route.path_prefix))
    others = sorted(p for p in set(all_prefixes) if p != route.path_prefix and p.startswith(route.path_prefix))
    exempt = route.rate_limit.exempt_paths if route.rate_limit else []
    statements += [{"not_statement": {"statement": _starts_with(p)}} for p in [*others, *exempt]]
    if not statements:
        return None
    return statements[0] if len(statements) == 1 else {"and_statement": {"statements": statements}}


def rate_rule(route: ProtectedRoute, priority: int, all_prefixes: Sequence[str]) -> dict[str, Any]:
    limit = route.rate_limit
    assert limit is not None
    statement: dict[str, Any] = {
        "limit": limit.requests,
        "evaluation_window_sec": limit.window_seconds,
        "aggregate_key_type": _KEYS[limit.key],
    }
    if limit.key is RateLimitKey.forwarded_ip:
        # A request without the header is counted by its own address' absence: MATCH counts it too.
        statement["forwarded_ip_config"] = {"header_name": "X-Forwarded-For", "fallback_behavior": "MATCH"}
    if limit.key is RateLimitKey.header:
        statement["custom_keys"] = [{"header": {"name": str(limit.header).lower(),
                                                "text_transformations": [{"priority": 0, "type": "NONE"}]}}]
    down = scope_down(route, all_prefixes)
    if down is not None:
        statement["scope_down_statement"] = down
    action = ({"count": {}} if limit.mode is EnforcementMode.count_only
              else {"block": {"custom_response": {"response_code": RATE_LIMITED_STATUS}}})
    return {"name": f"rate-{route.service}", "priority": priority, "action": action,
            "statement": {"rate_based_statement": statement}, "visibility_config": _visibility(f"rate-{route.service}")}


def body_rule(route: ProtectedRoute, priority: int) -> dict[str, Any]:
    size = route.max_request_body_bytes
    assert size is not None
    match: dict[str, Any] = {"size_constraint_statement": {
        "comparison_operator": "GT", "size": size,
        "field_to_match": {"body": {"oversize_handling": "MATCH"}},
        "text_transformations": [{"priority": 0, "type": "NONE"}],
    }}
    if route.path_prefix != "/":
        match = {"and_statement": {"statements": [match, _starts_with(route.path_prefix)]}}
    return {"name": f"body-{route.service}", "priority": priority,
            "action": {"block": {"custom_response": {"response_code": TOO_LARGE_STATUS}}},
            "statement": match, "visibility_config": _visibility(f"body-{route.service}")}


def managed_rule(group: str, priority: int) -> dict[str, Any]:
    return {"name": group, "priority": priority, "override_action": {"none": {}},
            "statement": {"managed_rule_group_statement": {"name": group, "vendor_name": "AWS"}},
            "visibility_config": _visibility(group)}


def web_acl_rules(routes: Sequence[ProtectedRoute], managed: Sequence[str]) -> list[dict[str, Any]]:
    prefixes = [r.path_prefix for r in routes]
    rules = [body_rule(r, BODY_PRIORITY + i)
             for i, r in enumerate(r for r in routes if r.max_request_body_bytes is not None)]
    rules += [managed_rule(group, MANAGED_PRIORITY + i) for i, group in enumerate(managed)]
    rules += [rate_rule(r, RATE_PRIORITY + i, prefixes)
              for i, r in enumerate(r for r in routes if r.rate_limit is not None)]
    return rules


class EndpointFirewall(pulumi.ComponentResource):
    web_acl_arn: pulumi.Output[str]

    def __init__(self, name: str, args: EndpointFirewallArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:EndpointFirewall", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        tags = dict(args.tags)
        services = ",".join(r.service for r in args.routes if r.rate_limit is not None)
        acl = aws.wafv2.WebAcl(
            f"{name}-acl",
            scope="REGIONAL",
            description="accelplane inference endpoint: rate limits, body limits, managed rule groups",
            default_action={"allow": {}},
            rules=web_acl_rules(args.routes, args.managed_rule_groups),  # type: ignore[arg-type]
            visibility_config=_visibility(f"{name}-acl"),
            tags={**tags, SERVICE_TAG: services} if services else tags,
            opts=child,
        )
        aws.wafv2.WebAclAssociation(
            f"{name}-association", resource_arn=args.load_balancer_arn, web_acl_arn=acl.arn, opts=child
        )
        logs = aws.cloudwatch.LogGroup(
            f"{name}-logs", name=f"{LOG_GROUP_PREFIX}{name}", retention_in_days=LOG_RETENTION_DAYS, tags=tags,
            opts=child,
        )
        aws.wafv2.WebAclLoggingConfiguration(
            f"{name}-logging",
            resource_arn=acl.arn,
            log_destination_configs=[logs.arn],
            redacted_fields=[{"single_header": {"name": REDACTED_HEADER}}],
            opts=child,
        )
        self.web_acl_arn = acl.arn
        self.register_outputs({"webAclArn": acl.arn})
