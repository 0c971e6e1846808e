"""The endpoint probe against a real HTTPS server on 127.0.0.1, with certificates from a test CA."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from accelplane.clouds.aws.verify.reader import elb_policy_minimum_tls
from accelplane.verify.endpoint_policy import EndpointPolicy, redirect_check, tls_versions_check
from accelplane.verify.probe import Credentials, credentials_problem, parse_matcher, percentile, probe_endpoint
from accelplane.verify.results import CheckId, Status
from tests.verify.moto_platform import MotoPlatform


@dataclass(frozen=True)
class Ca:
    key: ec.EllipticCurvePrivateKey
    certificate: x509.Certificate
    pem: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> Ca:
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name("accelplane test CA"))
        .issuer_name(_name("accelplane test CA"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    pem = tmp_path_factory.mktemp("ca") / "ca.pem"
    pem.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return Ca(key, certificate, pem)


def issue(
    ca: Ca,
    directory: Path,
    *,
    days: float = 90,
    names: tuple[str, ...] = ("127.0.0.1", "localhost"),
    expired: bool = False,
    usage: x509.ObjectIdentifier = x509.oid.ExtendedKeyUsageOID.SERVER_AUTH,
    stem: str = "server",
) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    start, end = (
        (now - dt.timedelta(days=30), now - dt.timedelta(days=1))
        if expired
        else (now - dt.timedelta(hours=1), now + dt.timedelta(days=days))
    )
    alternative = [x509.IPAddress(ipaddress.ip_address(n)) if n[0].isdigit() else x509.DNSName(n) for n in names]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name(names[0]))
        .issuer_name(ca.certificate.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(alternative), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()), critical=False)
        .sign(ca.key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{stem}.pem", directory / f"{stem}.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


# `/slow` answers only once a test is over: a probe's timeout is reached without any wall-clock wait
# in the test (the handler waits on this event, set when the https fixture tears down).
SLOW_RELEASED = threading.Event()


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

    def do_GET(self) -> None:
        if self.path == "/slow":
            SLOW_RELEASED.wait(timeout=30)
        status = 503 if self.path == "/sick" else 200
        body = b"ok" if status == 200 else b"unavailable"
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


def serve(cert: Path, key: Path, *, old_tls: bool = False, handler: type[BaseHTTPRequestHandler] = Handler,
          client_ca: Path | None = None) -> tuple[ThreadingHTTPServer, int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    if client_ca is not None:  # mutual TLS in verify mode: no handshake without a certificate from this CA
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    if old_tls:  # a listener on an old policy: TLS 1.0 and 1.1 with their ciphers
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = ssl.TLSVersion.TLSv1
        context.set_ciphers("ALL:@SECLEVEL=0")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture
def https(ca: Ca, tmp_path: Path) -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def start(old_tls: bool = False, handler: type[BaseHTTPRequestHandler] = Handler, client_ca: Path | None = None,
              **certificate: Any) -> str:
        server, port = serve(*issue(ca, tmp_path, **certificate), old_tls=old_tls, handler=handler,
                             client_ca=client_ca)
        servers.append(server)
        return f"https://127.0.0.1:{port}"

    yield start
    SLOW_RELEASED.set()
    for server in servers:
        server.shutdown()
        server.server_close()
    SLOW_RELEASED.clear()


def by_check(results: list[Any]) -> dict[str, Any]:
    return {r.check: r for r in results}


def test_healthy_endpoint_passes_with_latency_and_expiry(https: Any, ca: Ca) -> None:
    base = https(days=90)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=5, timeout=2, ca_bundle=str(ca.pem)))

    assert {k: r.status for k, r in results.items()} == {
        CheckId.endpoint_tls: Status.passed,
        CheckId.endpoint_health: Status.passed,
        CheckId.endpoint_certificate: Status.passed,
        CheckId.endpoint_latency: Status.passed,
    }
    assert "5/5 probes" in results[CheckId.endpoint_health].message
    latency = results[CheckId.endpoint_latency].actual
    assert latency["probes"] == 5 and 0 < latency["p50_ms"] <= latency["p99_ms"] < 2000
    assert "valid for 89 more days" in results[CheckId.endpoint_certificate].message


def test_certificate_expiring_within_30_days_warns(https: Any, ca: Ca) -> None:
    base = https(days=10)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=1, timeout=2, ca_bundle=str(ca.pem)))

    assert results[CheckId.endpoint_certificate].status is Status.warning
    assert "expires in 9 days" in results[CheckId.endpoint_certificate].message
    assert results[CheckId.endpoint_health].status is Status.passed


def test_unhealthy_status_fails_every_probe(https: Any, ca: Ca) -> None:
    base = https()

    results = by_check(probe_endpoint(f"{base}/sick", probes=3, timeout=2, matcher="200-299", ca_bundle=str(ca.pem)))

    health = results[CheckId.endpoint_health]
    assert health.status is Status.failed
    assert "3/3 probes" in health.message and "3 HTTP 503" in health.message
    assert CheckId.endpoint_latency not in results  # no successful probe to measure


def test_slow_endpoint_times_out(https: Any, ca: Ca) -> None:
    base = https()

    results = by_check(probe_endpoint(f"{base}/slow", probes=2, timeout=0.3, ca_bundle=str(ca.pem)))

    health = results[CheckId.endpoint_health]
    assert health.status is Status.failed and "2 timeout" in health.message and "within 0.3s" in health.message


def test_certificate_from_an_unknown_ca_fails_tls(https: Any) -> None:
    base = https()

    results = by_check(probe_endpoint(f"{base}/healthz", probes=3, timeout=2))  # system trust store only

    assert results[CheckId.endpoint_tls].status is Status.failed
    assert "certificate" in results[CheckId.endpoint_tls].message
    assert "1/1 probes" in results[CheckId.endpoint_health].message  # one try: TLS will not verify on the next


def test_certificate_for_another_host_fails_tls(https: Any, ca: Ca) -> None:
    base = https(names=("api.example.com",))

    results = by_check(probe_endpoint(f"{base}/healthz", probes=1, timeout=2, ca_bundle=str(ca.pem)))

    assert results[CheckId.endpoint_tls].status is Status.failed
    assert "mismatch" in results[CheckId.endpoint_tls].message or "match" in results[CheckId.endpoint_tls].message


def test_expired_certificate_fails_tls(https: Any, ca: Ca) -> None:
    base = https(expired=True)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=1, timeout=2, ca_bundle=str(ca.pem)))

    assert results[CheckId.endpoint_tls].status is Status.failed and "expired" in results[CheckId.endpoint_tls].message


def test_refused_connection_fails_health() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused

        results = by_check(probe_endpoint(f"https://127.0.0.1:{port}/healthz", probes=2, timeout=1))

    assert results[CheckId.endpoint_health].status is Status.failed
    assert "2 connection:" in results[CheckId.endpoint_health].message


def test_matcher_and_percentile() -> None:
    accept = parse_matcher("200,202-204")
    assert [accept(c) for c in (200, 201, 202, 204, 205)] == [True, False, True, True, False]
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(n) for n in range(1, 101)], 99) == 99.0


def test_verify_probes_the_declared_health_path(live_dev: MotoPlatform, run_verify: Any, https: Any, ca: Ca) -> None:
    base = https()

    with plain_http(301) as http_base:
        report = run_verify(probes=3, probe_url=f"{base}/healthz", ca_bundle=str(ca.pem),
                            probe_http_url=f"{http_base}/healthz")

    endpoint = {r.check: r for r in report.results if r.check.startswith("endpoint.")}
    assert {r.status for r in endpoint.values()} == {Status.passed}
    # dev declares ELBSecurityPolicy-TLS13-1-2-2021-06 and http_redirect: both are probed
    assert "refuses TLS 1.0, TLS 1.1" in endpoint[CheckId.endpoint_tls_versions].message
    assert endpoint[CheckId.endpoint_http_redirect].message.endswith("answers 301 to https://127.0.0.1/healthz")
    assert endpoint[CheckId.endpoint_health].name == "acme-ml-dev-inference-alb"
    assert not report.failed


@contextmanager
def plain_http(status: int, location: str = "https://127.0.0.1/healthz") -> Iterator[str]:
    """A plain-HTTP listener answering every GET with `status` (and Location, for a redirect)."""

    class Answer(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True  # no ~40 ms delayed-ACK wait per answer on loopback

        def do_GET(self) -> None:
            self.send_response(status)
            if status in (301, 302, 307, 308):
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


POLICY = EndpointPolicy("TLS_1_2", "TLS policy ELBSecurityPolicy-TLS13-1-2-2021-06", http_redirect=True)


def test_an_endpoint_that_still_accepts_tls_1_0_and_1_1_fails(https: Any) -> None:
    base = https(old_tls=True)
    result = tls_versions_check(f"{base}/healthz", POLICY, timeout=2, subject={})
    assert result.status is Status.failed
    assert result.message.endswith("accepts TLS 1.0, TLS 1.1, below the minimum TLS 1.2 of TLS policy "
                                   "ELBSecurityPolicy-TLS13-1-2-2021-06")


def test_an_endpoint_refusing_what_its_policy_forbids_passes(https: Any) -> None:
    base = https()
    result = tls_versions_check(f"{base}/healthz", POLICY, timeout=2, subject={})
    assert result.status is Status.passed and "refuses TLS 1.0, TLS 1.1" in result.message
    strict = tls_versions_check(f"{base}/healthz", EndpointPolicy("TLS_1_3", "a TLS 1.3 policy"), timeout=2,
                                subject={})
    assert strict.status is Status.failed and "accepts TLS 1.2" in strict.message


@pytest.mark.parametrize(("status", "location", "passes"), [
    (301, "https://127.0.0.1/healthz", True),
    (308, "https://127.0.0.1/healthz", True),
    (301, "http://127.0.0.1/elsewhere", False),
    (200, "", False),
])
def test_plain_http_must_only_redirect_to_https(status: int, location: str, passes: bool) -> None:
    with plain_http(status, location) as base:
        result = redirect_check(f"{base}/healthz", timeout=2, subject={})
    assert (result.status is Status.passed) is passes, result.message


def test_nothing_listening_on_plain_http_fails_the_redirect_check() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = redirect_check(f"http://127.0.0.1:{port}/healthz", timeout=1, subject={})
    assert result.status is Status.failed and "no answer over plain HTTP" in result.message


@pytest.mark.parametrize(("policy", "minimum"), [
    ("ELBSecurityPolicy-TLS13-1-2-2021-06", "TLS_1_2"),
    ("ELBSecurityPolicy-TLS13-1-3-2021-06", "TLS_1_3"),
    ("ELBSecurityPolicy-TLS-1-2-Ext-2018-06", "TLS_1_2"),
    ("ELBSecurityPolicy-FS-1-1-2019-08", "TLS_1_1"),
    ("ELBSecurityPolicy-2016-08", "TLS_1_0"),
])
def test_elb_policy_names_give_their_minimum_tls(policy: str, minimum: str) -> None:
    assert elb_policy_minimum_tls(policy) == minimum


# -- client authentication (issue 49): a request without credentials must be refused ---------------

TOKEN = "eyJhbGciOiJSUzI1NiJ9.test-token.signature"


class TokenHandler(Handler):
    """What a load balancer validating tokens answers: 401 without the bearer token (RFC 6750's
    WWW-Authenticate), the backend's answer with it."""

    def do_GET(self) -> None:
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer realm="serve"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()


def test_a_token_endpoint_refuses_the_anonymous_client_and_serves_the_caller(https: Any, ca: Ca, tmp_path: Path
                                                                             ) -> None:
    base = https(handler=TokenHandler)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=3, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="id_tokens", credentials=Credentials(token=TOKEN)))

    assert results[CheckId.endpoint_auth].status is Status.passed
    assert "refused a client without credentials: HTTP 401 (id_tokens)" in results[CheckId.endpoint_auth].message
    assert results[CheckId.endpoint_health].status is Status.passed
    assert "3/3 probes" in results[CheckId.endpoint_health].message
    assert all(TOKEN not in r.message for r in results.values())


def test_an_endpoint_serving_anyone_fails_the_auth_check(https: Any, ca: Ca) -> None:
    base = https()

    results = by_check(probe_endpoint(f"{base}/healthz", probes=1, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="id_tokens", credentials=Credentials(token=TOKEN)))

    assert results[CheckId.endpoint_auth].status is Status.failed
    assert "answered HTTP 200 to a client without credentials" in results[CheckId.endpoint_auth].message


def test_without_credentials_the_health_probes_are_skipped_not_failed(https: Any, ca: Ca) -> None:
    base = https(handler=TokenHandler)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=3, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="id_tokens"))

    assert results[CheckId.endpoint_auth].status is Status.passed
    assert results[CheckId.endpoint_health].status is Status.skipped
    assert "--probe-token-file" in results[CheckId.endpoint_health].message
    assert results[CheckId.endpoint_certificate].status is Status.passed  # read from the refused request


def test_mutual_tls_refuses_at_the_handshake_and_serves_a_client_certificate(https: Any, ca: Ca, tmp_path: Path
                                                                            ) -> None:
    base = https(client_ca=ca.pem)
    cert, key = issue(ca, tmp_path, names=("client.example.com",), usage=x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH,
                      stem="client")

    results = by_check(probe_endpoint(f"{base}/healthz", probes=2, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="mutual_tls",
                                      credentials=Credentials(client_cert=str(cert), client_key=str(key))))

    assert results[CheckId.endpoint_auth].status is Status.passed
    assert "at the TLS handshake" in results[CheckId.endpoint_auth].message
    assert results[CheckId.endpoint_health].status is Status.passed


def test_the_probe_s_credentials_are_checked_before_anything_is_read(tmp_path: Path, ca: Ca) -> None:
    empty = tmp_path / "token"
    empty.write_text("\n")
    assert credentials_problem(str(empty), None, None) == (
        "--probe-token-file", "the file is empty: expected an ID token")
    assert credentials_problem(None, None, str(tmp_path / "k.pem"))[0] == "--probe-client-key"
    problem = credentials_problem(None, str(ca.pem), None)  # a CA certificate without its key
    assert problem is not None and problem[0] == "--probe-client-cert" and "cannot load them" in problem[1]
    token = tmp_path / "id-token"
    token.write_text(TOKEN + "\n")
    assert credentials_problem(str(token), None, None) is None
    assert Credentials.from_files(str(token), None, None).token == TOKEN


SIGN_IN = "https://acme-llm-playground.auth.us-west-2.amazoncognito.com/oauth2/authorize"


class SignInHandler(Handler):
    """What the ALB's authenticate-cognito answers a browser without a session: 302 to the pool's
    authorization endpoint (ELB User Guide, "Authenticate users using an Application Load Balancer")."""

    def do_GET(self) -> None:
        self.send_response(302)
        self.send_header("Location", f"{SIGN_IN}?client_id=6p8b2k3m4n5q6r7s8t9u0v1w2x&response_type=code&state=x")
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_people_sign_in_sends_the_anonymous_client_to_the_sign_in_page(https: Any, ca: Ca) -> None:
    base = https(handler=SignInHandler)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=3, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="people"))

    assert results[CheckId.endpoint_auth].status is Status.passed
    assert f"sent a client without credentials to sign in: HTTP 302 to {SIGN_IN} (people)" in (
        results[CheckId.endpoint_auth].message)
    assert "client_id" not in results[CheckId.endpoint_auth].message
    assert results[CheckId.endpoint_health].status is Status.skipped
    assert "people sign in with a browser session" in results[CheckId.endpoint_health].message


def test_a_redirect_is_no_refusal_where_only_tokens_are_declared(https: Any, ca: Ca) -> None:
    base = https(handler=SignInHandler)

    results = by_check(probe_endpoint(f"{base}/healthz", probes=1, timeout=2, ca_bundle=str(ca.pem),
                                      authenticates="id_tokens", credentials=Credentials(token=TOKEN)))

    assert results[CheckId.endpoint_auth].status is Status.failed
