"""The endpoint probe on Google Cloud: the health path over verified TLS, the TLS versions offered
against the declared SSL policy's minimum, the HTTP listener that only redirects to HTTPS, and the
ID tokens tpu-prod's endpoint requires (real HTTPS and HTTP servers on 127.0.0.1 stand in for the
Gateway's address; the HTTPS one refuses a request without the bearer token as IAP does)."""

from __future__ import annotations

from accelplane.verify.results import CheckId, Status
from tests.verify.test_verify_probe import (  # noqa: F401  (the test CA and servers)
    TOKEN,
    TokenHandler,
    ca,
    https,
    plain_http,
)


def _endpoint(report) -> dict:
    return {r.check: r for r in report.results if r.check.startswith("endpoint.")}


def test_the_gateway_endpoint_is_probed_against_its_ssl_policy(tpu_prod, https, ca, tmp_path):  # noqa: F811
    base = https(handler=TokenHandler)
    token = tmp_path / "id-token"
    token.write_text(TOKEN + "\n")
    with plain_http(301) as http_base:
        report = tpu_prod.verify(probes=2, probe_url=f"{base}/healthz", probe_http_url=f"{http_base}/healthz",
                                 ca_bundle=str(ca.pem), probe_token_file=str(token))
    endpoint = _endpoint(report)
    assert {r.status for r in endpoint.values()} == {Status.passed}, [r.message for r in endpoint.values()]
    versions = endpoint[CheckId.endpoint_tls_versions].message
    assert "refuses TLS 1.0, TLS 1.1" in versions and "SSL policy acme-tpu-inference-ssl" in versions
    assert endpoint[CheckId.endpoint_http_redirect].status is Status.passed
    assert "HTTP 401 (id_tokens)" in endpoint[CheckId.endpoint_auth].message


def test_an_endpoint_below_the_ssl_policy_and_serving_plain_http_fails_both(tpu_prod, https, ca):  # noqa: F811
    base = https(old_tls=True)
    with plain_http(200) as http_base:
        report = tpu_prod.verify(probes=1, probe_url=f"{base}/healthz", probe_http_url=f"{http_base}/healthz",
                                 ca_bundle=str(ca.pem))
    endpoint = _endpoint(report)
    assert endpoint[CheckId.endpoint_tls_versions].status is Status.failed
    assert "accepts TLS 1.0, TLS 1.1" in endpoint[CheckId.endpoint_tls_versions].message
    assert endpoint[CheckId.endpoint_http_redirect].status is Status.failed
    assert report.failed
