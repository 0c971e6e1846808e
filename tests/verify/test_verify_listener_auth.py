"""`verify` reads a listener's client authentication (issue 49) as the declaration states it: DescribeListeners'
`jwt-validation` action (JwtValidationConfig: Issuer, JwksEndpoint, AdditionalClaims) and
`MutualAuthentication` (Mode, TrustStoreArn), written here from the Elastic Load Balancing API reference and
checked against botocore's elbv2 model, read into the pulumi-aws inputs the program sets."""

from __future__ import annotations

from accelplane.clouds.aws.verify.drift_specs import SPECS
from accelplane.clouds.aws.verify.live_view.wire import wire, wire_actions
from accelplane.engine.graph import OfflineGraph
from tests.support.botocore_models import invalid

AUDIENCE = "123456789012-llmclients.apps.googleusercontent.com"
CALLER = "llm-gateway@acme-ml-apps.iam.gserviceaccount.com"
TOKEN_CHECK = {
    "Type": "jwt-validation",
    "Order": 1,
    "JwtValidationConfig": {
        "JwksEndpoint": "https://www.googleapis.com/oauth2/v3/certs",
        "Issuer": "https://accounts.google.com",
        "AdditionalClaims": [
            {"Format": "single-string", "Name": "aud", "Values": [AUDIENCE]},
            {"Format": "single-string", "Name": "email", "Values": [CALLER]},
        ],
    },
}
TRUST_STORE = "arn:aws:elasticloadbalancing:us-west-2:444455556666:truststore/acme-clients/0123456789abcdef"
MUTUAL = {"Mode": "verify", "TrustStoreArn": TRUST_STORE, "IgnoreClientCertificateExpiry": False}


def test_the_api_s_answer_is_what_the_elbv2_model_defines() -> None:
    assert not invalid("elbv2", "ModifyListener", {
        "ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:444455556666:listener/app/acme/1/2",
        "DefaultActions": [TOKEN_CHECK], "MutualAuthentication": MUTUAL})


def test_the_live_token_check_reads_as_prod_s_declared_action(prod_graph: OfflineGraph) -> None:
    [declared] = [a for a in prod_graph.named("acme-ml-inference-https").inputs["defaultActions"]
                  if a["type"] == "jwt-validation"]
    assert wire_actions([TOKEN_CHECK], [declared]) == [declared]
    # Removed by hand, the listener's default actions differ from the declaration (drift on defaultActions).
    assert "defaultActions" in SPECS["aws:lb/listener:Listener"].read


def test_live_mutual_tls_reads_as_the_listener_s_input() -> None:
    assert wire(MUTUAL) == {"mode": "verify", "trustStoreArn": TRUST_STORE, "ignoreClientCertificateExpiry": False}
    spec = SPECS["aws:lb/listener:Listener"]
    # A listener without mutual TLS reports mode "off": AWS's default, not drift.
    assert "mutualAuthentication" in spec.read and spec.defaults["mutualAuthentication.mode"] == "off"


def test_a_live_cognito_sign_in_reads_as_the_declared_action() -> None:
    # DescribeListeners' authenticate-cognito action (AuthenticateCognitoConfig), as the API reference shows it.
    live = {"Type": "authenticate-cognito", "Order": 1, "AuthenticateCognitoConfig": {
        "UserPoolArn": "arn:aws:cognito-idp:us-west-2:444455556666:userpool/us-west-2_aBcDeFgHi",
        "UserPoolClientId": "6p8b2k3m4n5q6r7s8t9u0v1w2x", "UserPoolDomain": "acme-llm-playground",
        "SessionCookieName": "AWSELBAuthSessionCookie", "Scope": "openid", "SessionTimeout": 28800,
        "OnUnauthenticatedRequest": "authenticate"}}
    assert not invalid("elbv2", "ModifyListener", {
        "ListenerArn": "arn:aws:elasticloadbalancing:us-west-2:444455556666:listener/app/acme/1/2",
        "DefaultActions": [live]})
    declared = {"type": "authenticate-cognito", "order": 1, "authenticateCognito": {
        "userPoolArn": "arn:aws:cognito-idp:us-west-2:444455556666:userpool/us-west-2_aBcDeFgHi",
        "userPoolClientId": "6p8b2k3m4n5q6r7s8t9u0v1w2x", "userPoolDomain": "acme-llm-playground",
        "sessionTimeout": 28800, "scope": "openid", "onUnauthenticatedRequest": "authenticate"}}
    [read] = wire_actions([live], [declared])
    assert read["authenticateCognito"] == {**declared["authenticateCognito"],
                                           "sessionCookieName": "AWSELBAuthSessionCookie"}
