"""`InferenceEndpoint`: the Google Cloud side of the HTTPS inference endpoint on the GKE Gateway.

The Gateway (class `gke-l7-global-external-managed`), its HTTPRoute and the GKE policy objects
are Kubernetes objects built in the Kubernetes layer; they name what is created here:
- a reserved global IPv4 address (the Gateway's `addresses`, so the IP survives a re-created
  Gateway and DNS never moves),
- an SSL policy: TLS 1.2 at least, profile MODERN or RESTRICTED (GCPGatewayPolicy `sslPolicy`),
- a Cloud Armor security policy admitting only `allowed_cidrs` and denying everything else with
  403 (GCPBackendPolicy `securityPolicy`). Cloud Armor takes at most 10 source ranges per rule
  (https://cloud.google.com/armor/quotas), so the list is split over consecutive rules;
- per exposed service with a `rate_limit`, its own policy (a policy attaches per backend service, so
  the limit counts that service's requests only): the same allow-list, preceded by `throttle` (or
  `rate_based_ban`) rules over the same ranges that answer 429 above the threshold, counted per client
  IP, X-Forwarded-For address or header value; exempt paths are allowed first, one rule per (path,
  range) so each expression stays two sub-expressions. A count-only limit is a `preview` rule: it logs
  what it would do, and the allow rules after it still admit the request.
  Rate limiting: https://cloud.google.com/armor/docs/rate-limiting-overview
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_gcp.certificatemanager as certificatemanager
import pulumi_gcp.compute as compute
from pulumi_gcp.compute import SecurityPolicyRuleArgsDict

from accelplane.declaration import EnforcementMode, RateLimit, RateLimitAction, RateLimitKey

TLS_PROFILES = ("MODERN", "RESTRICTED")
RANGES_PER_RULE = 10
FIRST_ALLOW_PRIORITY = 1000
FIRST_EXEMPT_PRIORITY = 100
FIRST_RATE_PRIORITY = 500
RATE_LIMITED = "deny(429)"
_KEYS = {RateLimitKey.source_ip: "IP", RateLimitKey.forwarded_ip: "XFF_IP", RateLimitKey.header: "HTTP_HEADER"}
DEFAULT_RULE_PRIORITY = 2147483647  # Cloud Armor's default rule: the lowest priority there is


@dataclass(frozen=True)
class InferenceEndpointArgs:
    allowed_cidrs: Sequence[str]
    labels: Mapping[str, str]
    tls_profile: str = "MODERN"
    # The Certificate Manager certificate the Gateway serves (projects/<p>/locations/global/certificates/<n>)
    # and the certificate map it is served through: a global external Gateway names a map
    # (`networking.gke.io/certmap`, https://cloud.google.com/kubernetes-engine/docs/how-to/secure-gateway),
    # never a certificate directly. None: no map (an endpoint without TLS termination here).
    certificate: str | None = None
    certificate_map_name: str | None = None
    # Exposed service -> its rate limit: each gets its own policy (`service_policy_names`).
    service_limits: Mapping[str, RateLimit] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.tls_profile not in TLS_PROFILES:
            raise ValueError(f"tls_profile {self.tls_profile!r}: one of {', '.join(TLS_PROFILES)}")
        if not self.allowed_cidrs:
            raise ValueError("allowed_cidrs: at least one CIDR (everything else is denied)")


def armor_rules(allowed_cidrs: Sequence[str]) -> list[SecurityPolicyRuleArgsDict]:
    cidrs = list(dict.fromkeys(allowed_cidrs))
    rules: list[SecurityPolicyRuleArgsDict] = [
        {
            "action": "allow",
            "priority": FIRST_ALLOW_PRIORITY + index,
            "description": "Allowed source ranges",
            "match": {
                "versioned_expr": "SRC_IPS_V1",
                "config": {"src_ip_ranges": cidrs[start : start + RANGES_PER_RULE]},
            },
        }
        for index, start in enumerate(range(0, len(cidrs), RANGES_PER_RULE))
    ]
    rules.append(
        {
            "action": "deny(403)",
            "priority": DEFAULT_RULE_PRIORITY,
            "description": "Default: deny everything not allowed above",
            "match": {"versioned_expr": "SRC_IPS_V1", "config": {"src_ip_ranges": ["*"]}},
        }
    )
    return rules


def rate_limited_rules(allowed_cidrs: Sequence[str], limit: RateLimit) -> list[SecurityPolicyRuleArgsDict]:
    """One service's policy: exempt paths allowed, then the rate-limited allow-list, then `armor_rules`."""
    cidrs = list(dict.fromkeys(allowed_cidrs))
    rules: list[SecurityPolicyRuleArgsDict] = []
    exempt = [(path, cidr) for path in limit.exempt_paths for cidr in cidrs]
    for index, (path, cidr) in enumerate(exempt):
        rules.append({
            "action": "allow",
            "priority": FIRST_EXEMPT_PRIORITY + index,
            "description": f"Not rate-limited: {path}",
            "match": {"expr": {"expression": f"request.path.startsWith('{path}') && inIpRange(origin.ip, '{cidr}')"}},
        })
    options: dict[str, object] = {
        "conform_action": "allow",
        "exceed_action": RATE_LIMITED,
        "enforce_on_key": _KEYS[limit.key],
        "rate_limit_threshold": {"count": limit.requests, "interval_sec": limit.window_seconds},
    }
    if limit.key is RateLimitKey.header:
        options["enforce_on_key_name"] = limit.header
    if limit.action is RateLimitAction.ban:
        options["ban_duration_sec"] = limit.ban_seconds
    for index, start in enumerate(range(0, len(cidrs), RANGES_PER_RULE)):
        rules.append({
            "action": "rate_based_ban" if limit.action is RateLimitAction.ban else "throttle",
            "priority": FIRST_RATE_PRIORITY + index,
            "description": f"Allowed source ranges, at most {limit.requests} requests per {limit.window_seconds} s "
                           "per client",
            "match": {"versioned_expr": "SRC_IPS_V1",
                      "config": {"src_ip_ranges": cidrs[start : start + RANGES_PER_RULE]}},
            "rate_limit_options": options,  # type: ignore[typeddict-item]
            "preview": limit.mode is EnforcementMode.count_only,
        })
    return [*rules, *armor_rules(cidrs)]


class InferenceEndpoint(pulumi.ComponentResource):
    address: pulumi.Output[str]
    address_name: pulumi.Output[str]
    ssl_policy_name: pulumi.Output[str]
    security_policy_name: pulumi.Output[str]
    certificate_map_name: pulumi.Output[str] | None

    def __init__(self, name: str, args: InferenceEndpointArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("accelplane:gcp:InferenceEndpoint", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        address = compute.GlobalAddress(
            f"{name}-address",
            address_type="EXTERNAL",
            ip_version="IPV4",
            description="accelplane inference endpoint",
            labels=dict(args.labels),
            opts=child,
        )
        ssl_policy = compute.SSLPolicy(
            f"{name}-ssl",
            min_tls_version="TLS_1_2",
            profile=args.tls_profile,
            description="TLS 1.2 or later only",
            opts=child,
        )
        security_policy = compute.SecurityPolicy(
            f"{name}-armor",
            type="CLOUD_ARMOR",
            description="Only the declared source ranges reach the inference endpoint",
            rules=armor_rules(args.allowed_cidrs),
            labels=dict(args.labels),
            opts=child,
        )
        self.service_policy_names: dict[str, pulumi.Output[str]] = {}
        for service, limit in args.service_limits.items():
            policy = compute.SecurityPolicy(
                f"{name}-armor-{service}",
                type="CLOUD_ARMOR",
                description=f"Only the declared source ranges reach {service}, rate-limited per client",
                rules=rate_limited_rules(args.allowed_cidrs, limit),
                labels=dict(args.labels),
                opts=child,
            )
            self.service_policy_names[service] = policy.name
        self.certificate_map_name = None
        if args.certificate and args.certificate_map_name:
            certificate_map = certificatemanager.CertificateMap(
                f"{name}-certmap", name=args.certificate_map_name,
                description="the certificate the inference Gateway serves", labels=dict(args.labels), opts=child,
            )
            # PRIMARY: served for every host name the Gateway answers (no per-host entries).
            certificatemanager.CertificateMapEntry(
                f"{name}-certmap-primary", map=certificate_map.name, matcher="PRIMARY",
                certificates=[args.certificate], labels=dict(args.labels), opts=child,
            )
            self.certificate_map_name = certificate_map.name
        self.address = address.address
        self.address_name = address.name
        self.ssl_policy_name = ssl_policy.name
        self.security_policy_name = security_policy.name
        self.register_outputs(
            {
                "addressName": address.name,
                "sslPolicyName": ssl_policy.name,
                "securityPolicyName": security_policy.name,
            }
        )
