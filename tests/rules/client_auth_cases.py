"""Fixtures of the client-authentication rules (issue 49), both clouds, in the wire format the engines
send: an ALB listener's jwt-validation and mutual TLS as botocore's elbv2 model names them
(JwtValidationActionConfig, MutualAuthenticationAttributes), a trust store's S3 bundle, and GKE's
GCPBackendPolicy `iap` (networking.gke.io/v1)."""

from __future__ import annotations

from typing import Any

from accelplane.clouds.aws import resource_types as aws_types
from accelplane.clouds.gcp import resource_types as gcp_types
from tests.rules.cases import PROD_TAGS, TAGS, Case, res, role_policy
from tests.rules.gcp_cases import gateway, http_route, k8s
from tests.rules.resilience_cases import prod_alb, target_group

JWT = {"type": "jwt-validation", "order": 1, "jwtValidation": {
    "issuer": "https://accounts.google.com", "jwksEndpoint": "https://www.googleapis.com/oauth2/v3/certs",
    "additionalClaims": [{"name": "aud", "format": "single-string", "values": ["123-abc.apps.googleusercontent.com"]},
                         {"name": "email", "format": "single-string",
                          "values": ["caller@acme.iam.gserviceaccount.com"]}]}}
TRUST_STORE_ARN = "arn:aws:elasticloadbalancing:us-west-2:123456789012:truststore/clients/73e2d6bc24d8a063"


def forward(group: str, order: int) -> dict[str, Any]:
    return {"type": "forward", "order": order, "forward": {"targetGroups": [{"arn": f"id-{group}", "weight": 100}]}}


def https(default_actions: list[dict[str, Any]], **props: Any) -> Any:
    return res(aws_types.LISTENER, "https", {
        "loadBalancerArn": "id-alb", "port": 443, "protocol": "HTTPS", "tags": PROD_TAGS,
        "sslPolicy": "ELBSecurityPolicy-TLS13-1-2-2021-06", "certificateArn": "arn:aws:acm:us-west-2:1:certificate/c",
        "defaultActions": default_actions, **props})


def listener_rule(actions: list[dict[str, Any]]) -> Any:
    return res("aws:lb/listenerRule:ListenerRule", "rule-embed", {
        "listenerArn": "id-https", "priority": 100, "tags": PROD_TAGS,
        "conditions": [{"pathPattern": {"values": ["/v1/embeddings*"]}}], "actions": actions})


def trust_store(version: str | None) -> Any:
    return res(aws_types.TRUST_STORE, "clients", {
        "caCertificatesBundleS3Bucket": "acme-pki", "caCertificatesBundleS3Key": "clients/ca-bundle.pem",
        **({"caCertificatesBundleS3ObjectVersion": version} if version else {}), "tags": TAGS}, id=TRUST_STORE_ARN)


def writes(resource_arn: str) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": ["s3:PutObject"], "Resource": [resource_arn]}


def iap_policy(service: str, *, enabled: bool = True) -> Any:
    return k8s(gcp_types.GKE_BACKEND_POLICY, service, "inference", {
        "default": {"securityPolicy": "acme-inference",
                    "iap": {"enabled": enabled, "clientID": "123-abc.apps.googleusercontent.com",
                            "oauth2ClientSecret": {"name": "accelplane-iap-oauth-client"}}},
        "targetRef": {"group": "", "kind": "Service", "name": service}})


CLIENT_AUTH_CASES: dict[str, Case] = {
    # A listener authenticates with a jwt-validation before every forward (default action and rules), or
    # with mutual TLS in verify mode; here the rule's forward is protected and the default action is not.
    "AP-LB-020": Case(
        passing=[prod_alb(), https([JWT, forward("tg", 2)]), listener_rule([JWT, forward("embed-tg", 2)]),
                 target_group(), target_group("embed-tg")],
        failing=[prod_alb(), https([forward("tg", 1)]), listener_rule([JWT, forward("embed-tg", 2)]),
                 target_group(), target_group("embed-tg")],
        expect="forwards to model servers without authenticating clients: its default action", target="https",
        environment="prod"),
    # Passthrough authenticates nobody at the load balancer: in prod, AP-LB-020's finding too.
    "AP-LB-021": Case(
        also_trips=frozenset({"AP-LB-020"}),
        passing=[prod_alb(), https([forward("tg", 1)], mutualAuthentication={
            "mode": "verify", "trustStoreArn": TRUST_STORE_ARN, "ignoreClientCertificateExpiry": False}),
            target_group()],
        failing=[prod_alb(), https([forward("tg", 1)], mutualAuthentication={"mode": "passthrough"}), target_group()],
        expect="mutual TLS in passthrough mode", target="https"),
    # Unpinned, and a workload role that may write the bundle's key: both are findings (on each).
    "AP-LB-022": Case(
        passing=[trust_store("3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY"),
                 role_policy("writer", writes("arn:aws:s3:::acme-checkpoints/trainer/*"))],
        failing=[trust_store(None), role_policy("writer", writes("arn:aws:s3:::acme-pki/clients/*"))],
        expect="may overwrite s3://acme-pki/clients/ca-bundle.pem", target="clients", also=("writer",)),
    "AP-GLB-020": Case(
        passing=[gateway(), http_route("serve", "inference", "serve"), iap_policy("serve")],
        failing=[gateway(), http_route("serve", "inference", "serve"), iap_policy("serve", enabled=False)],
        expect="backend Service inference/serve serves clients in prod without authenticating them",
        target="inference-inference-gateway", environment="prod"),
}

