"""Who may call the endpoint (issue 49): callers' ID tokens validated by the ALB (a jwt-validation action
before every forward) or by Identity-Aware Proxy on GKE's backends, and client certificates on the ALB
(mutual TLS against a trust store built from the declared CA bundle).

Expectations are written from the services' documents: the ALB's JWT validation (Elastic Load Balancing
User Guide, "Verify JWTs"; botocore elbv2 JwtValidationActionConfig: issuer, JWKS endpoint, up to 10
additional claims whose format is single-string, string-array or space-separated-values), mutual
authentication (MutualAuthenticationAttributes: verify or passthrough, a trust store from an S3 bundle);
Google's OpenID configuration (issuer https://accounts.google.com, keys at
https://www.googleapis.com/oauth2/v3/certs); GKE's GCPBackendPolicy `iap` (enabled, clientID,
oauth2ClientSecret.name, the Secret's key `key`) and IAP's access role (roles/iap.httpsResourceAccessor).
The ALB requests are checked against botocore's elbv2 model, enums included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from accelplane.config.loader import load_stack_file, load_stack_text
from accelplane.engine.graph import OfflineGraph
from accelplane.errors import InputError
from accelplane.program import offline_graph
from tests.support.botocore_models import invalid
from tests.support.cli_process import run_accelplane
from tests.support.stack_files import edited_stack, line_of, stack_text, write_variant

AUDIENCE = "123456789012-llmclients.apps.googleusercontent.com"
CALLER = "llm-gateway@acme-ml-apps.iam.gserviceaccount.com"
GOOGLE_TOKENS = {
    "issuer": "https://accounts.google.com",
    "jwksEndpoint": "https://www.googleapis.com/oauth2/v3/certs",
    "additionalClaims": [
        {"name": "aud", "format": "single-string", "values": [AUDIENCE]},
        {"name": "email", "format": "single-string", "values": [CALLER]},
    ],
}
IMAGE = ("111122223333.dkr.ecr.us-west-2.amazonaws.com/embed@sha256:"
         "8f4b1c3a9e2d7f6b5a4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a")
SECOND_SERVICE = f"""        - name: embed
          workload: serve
          port: 8080
          path_prefix: /v1/embeddings/
          node_pool: infer-l40s
          image: {IMAGE}
          autoscaling: {{min_replicas: 1, max_replicas: 2}}
"""
MTLS = """        mutual_tls:
          ca_bundle: s3://acme-ml-pki/clients/ca-bundle.pem
          ca_bundle_version: 3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY
"""
PROD_TOKENS = f"          callers: [{CALLER}]\n"


# Pulumi's input names -> the ELB API's, for the shapes these requests use.
_API_NAMES = {
    "type": "Type", "order": "Order", "jwtValidation": "JwtValidationConfig", "issuer": "Issuer",
    "jwksEndpoint": "JwksEndpoint", "additionalClaims": "AdditionalClaims", "name": "Name", "format": "Format",
    "values": "Values", "forward": "ForwardConfig", "targetGroups": "TargetGroups", "arn": "TargetGroupArn",
    "weight": "Weight", "stickiness": "TargetGroupStickinessConfig", "enabled": "Enabled",
    "duration": "DurationSeconds", "pathPattern": "PathPatternConfig", "mode": "Mode",
    "trustStoreArn": "TrustStoreArn", "ignoreClientCertificateExpiry": "IgnoreClientCertificateExpiry",
    "authenticateCognito": "AuthenticateCognitoConfig", "userPoolArn": "UserPoolArn",
    "userPoolClientId": "UserPoolClientId", "userPoolDomain": "UserPoolDomain", "sessionTimeout": "SessionTimeout",
    "scope": "Scope", "onUnauthenticatedRequest": "OnUnauthenticatedRequest",
}


def _api(value: Any) -> Any:
    if isinstance(value, dict):
        return {_API_NAMES[key]: _api(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_api(item) for item in value]
    return value


def _invalid(operation: str, params: dict[str, Any]) -> str:
    return invalid("elbv2", operation, params)


@pytest.fixture(scope="module")
def prod_two_services(tmp_path_factory: pytest.TempPathFactory) -> OfflineGraph:
    """prod (ID tokens declared) with a second exposed service on a path rule, and client certificates."""
    stack = edited_stack(tmp_path_factory.mktemp("auth"),
                         ("      inference_services:\n", "      inference_services:\n" + SECOND_SERVICE),
                         (PROD_TOKENS, PROD_TOKENS + MTLS))
    return offline_graph(stack)


def test_the_alb_validates_google_id_tokens_before_every_forward(prod_two_services: OfflineGraph) -> None:
    listener = prod_two_services.named("acme-ml-inference-https").inputs
    [rule] = prod_two_services.by_type("aws:lb/listenerRule:ListenerRule")
    for actions in (listener["defaultActions"], rule.inputs["actions"]):
        assert [(a["type"], a["order"]) for a in actions] == [("jwt-validation", 1), ("forward", 2)]
        assert actions[0]["jwtValidation"] == GOOGLE_TOKENS
    assert not _invalid("ModifyListener", {"ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:1:listener/app/a/b/c",
                                           "DefaultActions": _api(listener["defaultActions"])})
    assert not _invalid("CreateRule", {"ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:1:listener/app/a/b/c",
                                       "Priority": rule.inputs["priority"], "Actions": _api(rule.inputs["actions"]),
                                       "Conditions": [{"Field": "path-pattern", **_api(c)}
                                                      for c in rule.inputs["conditions"]]})


def test_client_certificates_are_verified_against_the_pinned_bundle(prod_two_services: OfflineGraph) -> None:
    [store] = prod_two_services.by_type("aws:lb/trustStore:TrustStore")
    assert {k: v for k, v in store.inputs.items() if k != "tags"} == {
        "caCertificatesBundleS3Bucket": "acme-ml-pki",
        "caCertificatesBundleS3Key": "clients/ca-bundle.pem",
        "caCertificatesBundleS3ObjectVersion": "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY",
    }
    mutual = prod_two_services.named("acme-ml-inference-https").inputs["mutualAuthentication"]
    assert mutual == {"mode": "verify", "trustStoreArn": store.outputs["arn"], "ignoreClientCertificateExpiry": False}
    assert not _invalid("CreateTrustStore", {"Name": "clients", **{k[0].upper() + k[1:]: v for k, v in
                                                                  store.inputs.items() if k != "tags"}})
    assert not _invalid("ModifyListener", {"ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:1:listener/app/a/b/c",
                                           "MutualAuthentication": _api(mutual)})


def test_passthrough_builds_no_trust_store_and_check_flags_it(tmp_path: Path) -> None:
    path, _ = write_variant(tmp_path, PROD_TOKENS, PROD_TOKENS + MTLS + "          mode: passthrough\n", "prod")
    graph = offline_graph(load_stack_file(path))
    assert not graph.by_type("aws:lb/trustStore:TrustStore")
    assert graph.named("acme-ml-inference-https").inputs["mutualAuthentication"] == {"mode": "passthrough"}
    result = run_accelplane(["check", "--stack-file", path, "--format", "json"])
    found = {f["rule"]: f for f in json.loads(result.stdout)["findings"]}
    assert "AP-LB-021" in found and "AP-LB-020" not in found, result.stdout  # the tokens still authenticate
    assert result.returncode == 0, result.stdout  # advisory: waivable with how the backends verify


def test_prod_without_client_authentication_fails_check_at_the_endpoint(tmp_path: Path) -> None:
    block = ("      client_auth:\n        id_tokens:\n"
             f"          audience: {AUDIENCE}\n" + PROD_TOKENS)
    path, _ = write_variant(tmp_path, block, "", "prod")
    result = run_accelplane(["check", "--stack-file", path, "--format", "sarif"])
    assert result.returncode == 1
    [finding] = [r for r in json.loads(result.stdout)["runs"][0]["results"] if r["ruleId"] == "AP-LB-020"]
    assert finding["level"] == "error"
    [location] = finding["locations"]
    assert location["logicalLocations"][0]["name"] == "acme-ml-inference-https"
    # No client_auth to point at: the finding is on the endpoint's element (its first line).
    assert location["physicalLocation"]["region"]["startLine"] == line_of(path, "    inference_endpoint:") + 1


def test_an_issuer_without_known_keys_needs_its_jwks_uri_and_an_empty_block_says_what_to_declare() -> None:
    prod = stack_text("prod")
    text = prod.replace(f"          audience: {AUDIENCE}\n",
                        f"          audience: {AUDIENCE}\n          issuer: https://login.example.com\n", 1)
    [problem] = _problems(text)
    assert ("give jwks_uri for issuer https://login.example.com (known without it: https://accounts.google.com)"
            in problem)
    start = prod.index("      client_auth:\n")
    end = prod.index("\n", prod.index("          callers:", start)) + 1
    [empty] = _problems(prod[:start] + "      client_auth: {}\n" + prod[end:])
    assert "declare how clients authenticate (id_tokens, mutual_tls, people), or leave client_auth out" in empty


def _problems(text: str) -> list[str]:
    with pytest.raises(InputError) as raised:
        load_stack_text(text, path="Pulumi.prod.yaml", stack="prod")
    return [str(problem) for problem in raised.value.problems]


USER_POOL = "arn:aws:cognito-idp:us-west-2:444455556666:userpool/us-west-2_aBcDeFgHi"
PEOPLE = f"""      client_auth:
        people:
          user_pool_arn: {USER_POOL}
          user_pool_client_id: 6p8b2k3m4n5q6r7s8t9u0v1w2x
          user_pool_domain: acme-llm-playground
"""


def _with(block: str) -> str:
    prod = stack_text("prod")
    start = prod.index("      client_auth:\n")
    end = prod.index("\n", prod.index("          callers:", start)) + 1
    return prod[:start] + block + prod[end:]


def test_people_sign_in_through_cognito_before_every_forward(tmp_path: Path) -> None:
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(_with(PEOPLE))
    graph = offline_graph(load_stack_file(path))
    actions = graph.named("acme-ml-inference-https").inputs["defaultActions"]
    assert [(a["type"], a["order"]) for a in actions] == [("authenticate-cognito", 1), ("forward", 2)]
    # A browser without a session goes to the pool's sign-in page; the session lasts the default 8 hours.
    assert actions[0]["authenticateCognito"] == {
        "userPoolArn": USER_POOL, "userPoolClientId": "6p8b2k3m4n5q6r7s8t9u0v1w2x",
        "userPoolDomain": "acme-llm-playground", "sessionTimeout": 28800, "scope": "openid",
        "onUnauthenticatedRequest": "authenticate",
    }
    assert not _invalid("ModifyListener", {"ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:1:listener/app/a/b/c",
                                           "DefaultActions": _api(actions)})
    result = run_accelplane(["check", "--stack-file", str(path), "--format", "json"])
    assert "AP-LB-020" not in {f["rule"] for f in json.loads(result.stdout)["findings"]}, result.stdout


def test_people_and_id_tokens_on_one_endpoint_are_refused() -> None:
    # botocore's elbv2 `Action`: one user authentication action per rule of an HTTPS listener.
    both = PEOPLE + f"        id_tokens:\n          audience: {AUDIENCE}\n" + PROD_TOKENS
    [problem] = _problems(_with(both))
    assert "an ALB listener rule takes one authentication action" in problem
