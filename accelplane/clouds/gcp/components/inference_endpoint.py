"""`InferenceEndpoint`: the Google Cloud side of the HTTPS inference endpoint on the GKE Gateway.

The Gateway (class `gke-l7-global-external-managed`), its HTTPRoute and the GKE policy objects
are Kubernetes objects built in the Kubernetes layer; they name what is created here:
- a reserved global IPv4 address (the Gateway's `addresses`, so the IP survives a re-created
  Gateway and DNS never moves),
- an SSL policy: TLS 1.2 at least, profile MODERN or RESTRICTED (GCPGatewayPolicy `sslPolicy`),
- a Cloud Armor security policy admitting only `allowed_cidrs` and denying everything else with
  403 (GCPBackendPolicy `securityPolicy`). Cloud Armor takes at most 10 source ranges per rule
  (https://cloud.google.com/armor/quotas), so the list is split over consecutive rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_gcp.certificatemanager as certificatemanager
import pulumi_gcp.compute as compute
from pulumi_gcp.compute import SecurityPolicyRuleArgsDict

TLS_PROFILES = ("MODERN", "RESTRICTED")
RANGES_PER_RULE = 10
FIRST_ALLOW_PRIORITY = 1000
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
