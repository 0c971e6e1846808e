"""`InferenceEndpoint`: a public ALB with an HTTPS listener, an optional HTTP redirect and one IP target
group per (exposed service, backend), weighted.

Pods are registered as IP targets by the AWS Load Balancer Controller through a TargetGroupBinding per
backend (Kubernetes layer), so the ALB itself stays declared here, in one place.

Routing: the HTTPS listener's default action forwards to the target groups of the service on "/"
with the declared weights (a weighted forward action); every other exposed service gets a listener
rule matching `<path_prefix>*`. Without a service on "/" the default action answers 404. Weighted
forward actions: https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-listeners.html#forward-actions
(weights 0-999, at most five target groups per action); rule conditions and priorities:
https://docs.aws.amazon.com/elasticloadbalancing/latest/application/listener-update-rules.html

Each target group is tagged `accelplane:service` and `accelplane:backend`: `accelplane rollout` and
`verify` find a backend's target group (its CloudWatch dimension, its health) by these tags. The
listener and each rule carry the weights they deploy as `accelplane:weights` (`endpoint_tags.py`).

Client authentication (`client_auth`): ID tokens are a `jwt-validation` action ahead of every forward
(the default action's and each rule's), checking the issuer's signature, `aud` and the caller's
`email` (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/listener-verify-jwt.html;
botocore elbv2 JwtValidationActionConfig); client certificates are the listener's mutual
authentication with a trust store built from the declared S3 bundle
(https://docs.aws.amazon.com/elasticloadbalancing/latest/application/mutual-authentication.html); people
sign in through a Cognito user pool, an `authenticate-cognito` action ahead of every forward instead of
the token check (a rule takes one authentication action).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
from pulumi_aws.lb import (
    ListenerDefaultActionArgsDict,
    ListenerDefaultActionForwardArgsDict,
    ListenerMutualAuthenticationArgsDict,
    ListenerRuleActionArgsDict,
    ListenerRuleActionAuthenticateCognitoArgsDict,
    ListenerRuleActionForwardArgsDict,
    ListenerRuleActionJwtValidationArgsDict,
)

from accelplane.clouds.aws.components.endpoint_firewall import EndpointFirewall, EndpointFirewallArgs, ProtectedRoute
from accelplane.clouds.aws.declaration import AwsClientAuth, MutualTlsMode
from accelplane.clouds.aws.declaration import AwsInferenceEndpoint as EndpointSpec
from accelplane.clouds.aws.endpoint_tags import BACKEND_TAG, SERVICE_TAG, WEIGHTS_TAG, weights_value
from accelplane.declaration import HealthCheck, IdTokens, RateLimit

DEFAULT_PREFIX = "/"
# A path-pattern value is at most 128 characters (listener-update-rules.html above): rules are ranked by
# prefix length in bands of RULES_PER_LENGTH, so a longer (more specific) prefix always wins and adding a
# service of another length never renumbers the others (two rules may not share a priority, even for
# the moment an update swaps them).
PATH_PATTERN_MAX = 128
# A deregistered pod keeps its in-flight requests this long (the pods' preStop pause outlasts it:
# `accelplane.k8s.inference_service`); slow start ramps a new pod's share up over this many seconds
# (30-900, https://docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-target-group-attributes.html).
DEREGISTRATION_DELAY_SECONDS = 30
SLOW_START_SECONDS = 60
RULES_PER_LENGTH = 100  # an ALB listener holds at most 100 rules


@dataclass(frozen=True)
class RouteBackend:
    name: str
    weight: int  # %, the backends of one route sum to 100


@dataclass(frozen=True)
class Route:
    """An exposed inference service: the requests under `path_prefix` go to its backends by weight."""

    service: str
    path_prefix: str
    backends: Sequence[RouteBackend]
    health_check: HealthCheck | None = None  # the service's effective probe (default: the endpoint's)
    rate_limit: RateLimit | None = None
    max_request_body_bytes: int | None = None


def _weights(route: Route) -> str:
    """The deployed weights, as a tag `--apply-now` leaves alone (`accelplane/clouds/aws/endpoint_tags.py`)."""
    return weights_value((b.name, b.weight) for b in route.backends)


@dataclass(frozen=True)
class InferenceEndpointArgs:
    spec: EndpointSpec
    vpc_id: pulumi.Input[str]
    public_subnet_ids: Sequence[pulumi.Input[str]]
    security_group_id: pulumi.Input[str]
    tags: Mapping[str, str]
    routes: Sequence[Route] = ()


def rule_priorities(prefixes: Sequence[str]) -> dict[str, int]:
    """Listener rule priority per non-default prefix: longer prefixes first (lower number), then by name."""
    ranked: dict[str, int] = {}
    by_length: dict[int, list[str]] = {}
    for prefix in prefixes:
        if prefix != DEFAULT_PREFIX:
            by_length.setdefault(len(prefix), []).append(prefix)
    for length, same in by_length.items():
        for slot, prefix in enumerate(sorted(same)):
            ranked[prefix] = (PATH_PATTERN_MAX - min(length, PATH_PATTERN_MAX)) * RULES_PER_LENGTH + slot + 1
    return ranked


class InferenceEndpoint(pulumi.ComponentResource):
    dns_name: pulumi.Output[str]
    zone_id: pulumi.Output[str]  # the ALB's canonical hosted zone: what a Route 53 alias record names
    # (service, backend) -> target group ARN, for the TargetGroupBindings and the controller's role.
    target_group_arns: dict[tuple[str, str], pulumi.Output[str]]

    def __init__(self, name: str, args: InferenceEndpointArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:aws:InferenceEndpoint", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        spec = args.spec
        tags = dict(args.tags)
        alb = aws.lb.LoadBalancer(
            f"{name}-alb",
            load_balancer_type="application",
            internal=False,
            subnets=list(args.public_subnet_ids),
            security_groups=[args.security_group_id],
            drop_invalid_header_fields=True,
            # Strictest: requests whose ambiguous framing could smuggle a second request are refused
            # (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#desync-mitigation-mode).
            desync_mitigation_mode="strictest",
            idle_timeout=spec.idle_timeout_seconds,
            tags=tags,
            opts=child,
        )
        self.target_group_arns = {}
        for route in args.routes:
            health = route.health_check or spec.health_check
            for backend in route.backends:
                # Target group names are left to pulumi-aws (32 characters at most, a random suffix):
                # the logical name carries service and backend, the tags say them to other tools.
                # The "/" service's backend named after the service (the inline form, or the backend that
                # keeps the service's name when others join it) keeps the logical name of the one target
                # group the endpoint had before backends existed: an existing stack's target group, its
                # ARN and the pods registered in it stay (no replacement, no re-registration).
                legacy = route.path_prefix == DEFAULT_PREFIX and backend.name == route.service
                group = aws.lb.TargetGroup(
                    f"{name}-tg-{route.service}-{backend.name}",
                    target_type="ip",
                    port=spec.target_port,
                    protocol="HTTP",
                    vpc_id=args.vpc_id,
                    deregistration_delay=DEREGISTRATION_DELAY_SECONDS,
                    # New pods get a rising share over a minute: a model server's first requests are slow
                    # (compilation, cache warm-up) and must not take a full share at once.
                    slow_start=SLOW_START_SECONDS,
                    health_check={
                        "enabled": True,
                        "path": health.path,
                        "port": "traffic-port",
                        "protocol": "HTTP",
                        "interval": health.interval_seconds,
                        "timeout": health.timeout_seconds,
                        "healthy_threshold": health.healthy_threshold,
                        "unhealthy_threshold": health.unhealthy_threshold,
                        "matcher": health.matcher,
                    },
                    tags={**tags, SERVICE_TAG: route.service, BACKEND_TAG: backend.name},
                    opts=pulumi.ResourceOptions(
                        parent=self, aliases=[pulumi.Alias(name=f"{name}-tg")] if legacy else None
                    ),
                )
                self.target_group_arns[(route.service, backend.name)] = group.arn
        default = next((r for r in args.routes if r.path_prefix == DEFAULT_PREFIX), None)
        tokens = _authentication(spec.client_auth)
        default_actions: list[ListenerDefaultActionArgsDict] = (
            _behind(tokens, {"type": "forward", "forward": self._default_forward(default)})
            if default is not None
            else [{
                "type": "fixed-response",
                "fixed_response": {"content_type": "text/plain", "message_body": "Not Found", "status_code": "404"},
            }]
        )
        listener = aws.lb.Listener(
            f"{name}-https",
            load_balancer_arn=alb.arn,
            port=spec.listener_port,
            protocol="HTTPS",
            ssl_policy=spec.tls_policy,
            certificate_arn=spec.certificate_arn,
            default_actions=default_actions,
            mutual_authentication=self._mutual_authentication(name, spec, tags, child),
            tags=tags if default is None else {**tags, WEIGHTS_TAG: _weights(default)},
            opts=child,
        )
        priorities = rule_priorities([r.path_prefix for r in args.routes])
        for route in args.routes:
            if route.path_prefix == DEFAULT_PREFIX:
                continue
            actions: list[ListenerRuleActionArgsDict] = _behind(
                tokens, {"type": "forward", "forward": self._rule_forward(route)})
            aws.lb.ListenerRule(
                f"{name}-rule-{route.service}",
                listener_arn=listener.arn,
                priority=priorities[route.path_prefix],
                conditions=[{"path_pattern": {"values": [f"{route.path_prefix}*"]}}],
                actions=actions,
                tags={**tags, SERVICE_TAG: route.service, WEIGHTS_TAG: _weights(route)},
                opts=child,
            )
        if spec.http_redirect:
            # Port 80 only ever answers with a redirect: AP-LB-002 requires it, and it is the one condition
            # on which AP-NET-001 lets port 80 be open to the internet.
            aws.lb.Listener(
                f"{name}-http-redirect",
                load_balancer_arn=alb.arn,
                port=80,
                protocol="HTTP",
                default_actions=[
                    {
                        "type": "redirect",
                        "redirect": {"port": str(spec.listener_port), "protocol": "HTTPS", "status_code": "HTTP_301"},
                    }
                ],
                tags=tags,
                opts=child,
            )
        protected = [ProtectedRoute(r.service, r.path_prefix, r.rate_limit, r.max_request_body_bytes)
                     for r in args.routes]
        self.web_acl_arn: pulumi.Output[str] | None = None
        if spec.waf_managed_rule_groups or any(r.rate_limit or r.max_request_body_bytes for r in protected):
            firewall = EndpointFirewall(
                f"{name}-waf",
                EndpointFirewallArgs(load_balancer_arn=alb.arn, routes=protected,
                                     managed_rule_groups=spec.waf_managed_rule_groups, tags=tags),
                opts=child,
            )
            self.web_acl_arn = firewall.web_acl_arn
        self.dns_name = alb.dns_name
        self.zone_id = alb.zone_id
        arns = {f"{service}/{backend}": arn for (service, backend), arn in self.target_group_arns.items()}
        self.register_outputs({"dnsName": alb.dns_name, "targetGroupArns": arns})

    @staticmethod
    def _mutual_authentication(name: str, spec: EndpointSpec, tags: Mapping[str, str],
                               child: pulumi.ResourceOptions) -> ListenerMutualAuthenticationArgsDict | None:
        """The listener's client-certificate handling; in verify mode, with a trust store built from the
        declared bundle (at the pinned object version where one is declared)."""
        mtls = spec.client_auth.mutual_tls if spec.client_auth is not None else None
        if mtls is None:
            return None
        if mtls.mode is MutualTlsMode.passthrough:
            return {"mode": "passthrough"}
        bucket, key = mtls.bucket_and_key()
        store = aws.lb.TrustStore(
            f"{name}-clients",
            ca_certificates_bundle_s3_bucket=bucket,
            ca_certificates_bundle_s3_key=key,
            ca_certificates_bundle_s3_object_version=mtls.ca_bundle_version,
            tags=dict(tags),
            opts=child,
        )
        # Expired client certificates are refused (the default, stated); the CA names are not advertised.
        return {"mode": "verify", "trust_store_arn": store.arn, "ignore_client_certificate_expiry": False}

    # Stickiness off: a client's requests follow the weights, so the canary's share is what the weights
    # say (with stickiness on, the ALB pins a client to one target group for `duration` seconds).
    def _default_forward(self, route: Route) -> ListenerDefaultActionForwardArgsDict:
        return {
            "target_groups": [
                {"arn": self.target_group_arns[(route.service, b.name)], "weight": b.weight} for b in route.backends
            ],
            "stickiness": {"enabled": False, "duration": 1},
        }

    def _rule_forward(self, route: Route) -> ListenerRuleActionForwardArgsDict:
        return {
            "target_groups": [
                {"arn": self.target_group_arns[(route.service, b.name)], "weight": b.weight} for b in route.backends
            ],
            "stickiness": {"enabled": False, "duration": 1},
        }


def _authentication(auth: AwsClientAuth | None) -> dict[str, Any] | None:
    """The one authentication action every forward comes after (a rule takes one at most): the ID-token
    check for machine callers, or Cognito sign-in for people."""
    if auth is None:
        return None
    if auth.id_tokens is not None:
        return {"type": "jwt-validation", "jwt_validation": _jwt_validation(auth.id_tokens)}
    if auth.people is not None:
        people = auth.people
        cognito: ListenerRuleActionAuthenticateCognitoArgsDict = {
            "user_pool_arn": people.user_pool_arn,
            "user_pool_client_id": people.user_pool_client_id,
            "user_pool_domain": people.user_pool_domain,
            "session_timeout": people.session_timeout_seconds,
            "scope": "openid",
            # A browser without a session goes to the sign-in page (the ALB's default, stated).
            "on_unauthenticated_request": "authenticate",
        }
        return {"type": "authenticate-cognito", "authenticate_cognito": cognito}
    return None


def _behind(authentication: dict[str, Any] | None, forward: Any) -> list[Any]:
    """`forward` alone, or after the authentication action (an action list of several needs each one's
    `order`)."""
    if authentication is None:
        return [forward]
    return [{**authentication, "order": 1}, {**forward, "order": 2}]


def _jwt_validation(tokens: IdTokens) -> ListenerRuleActionJwtValidationArgsDict:
    """The ID-token check: the issuer's signature, expiry and `iss` (always checked by the ALB), then the
    audience and the caller, as single-string claims (Google puts one `aud` and one `email` in a token)."""
    return {
        "issuer": tokens.issuer,
        "jwks_endpoint": tokens.keys_uri(),
        "additional_claims": [
            {"name": "aud", "format": "single-string", "values": [tokens.audience]},
            {"name": "email", "format": "single-string", "values": list(tokens.callers)},
        ],
    }
