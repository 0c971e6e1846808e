"""HTTPS health probe of the inference endpoint: the declared health-check path, as a client sees it.

N sequential probes, each a new TLS connection (handshake included in the latency, as for a new
client), verified against the system trust store or `--ca-bundle`. Reported: whether TLS verifies
for the host, whether every probe answered with a status the declared matcher accepts within the
timeout, the certificate's days to expiry (warning under 30, failure once expired) and the latency
p50/p99 (nearest rank) of the probes that succeeded.

Where the endpoint authenticates its clients (`client_auth`), one more request goes without any
credential and must be refused (`endpoint.auth`): an HTTP 401 or 403 (the load balancer's token
validation, Identity-Aware Proxy), the TLS handshake (mutual TLS without a client certificate), or a
redirect to the sign-in page (people signing in through the load balancer). The
health probes then go as a caller would: the ID token of `--probe-token-file` as a bearer token, the
client certificate of `--probe-client-cert`/`--probe-client-key`; without either they are skipped, not
failed (every one would be refused, as it must be). The token is never printed.
"""

from __future__ import annotations

import http.client
import math
import ssl
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from accelplane.urls import url_problem
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

CERT_WARN_DAYS = 30


def probe_url_problem(url: str) -> str | None:
    """What is wrong with `url` as the URL to probe (HTTPS, a host, a port in range); None if usable."""
    return url_problem(url, "expected an https:// URL with a host, e.g. https://api.example.com/healthz",
                       schemes=("https",), scheme_hint="the probe checks TLS, so the scheme must be https")


def ca_bundle_problem(path: str) -> str | None:
    """Why `path` cannot be used to verify the endpoint's certificate; None when it loads."""
    try:
        ssl.create_default_context(cafile=path)
    except FileNotFoundError:
        return "no such file"
    except (ssl.SSLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
        return f"expected a PEM file of CA certificates (cannot load it: {reason})"
    return None


def parse_matcher(matcher: str) -> Callable[[int], bool]:
    """The ALB matcher syntax: `200`, `200,202`, `200-299`."""
    ranges: list[tuple[int, int]] = []
    for part in matcher.split(","):
        part = part.strip()
        if "-" in part:
            low, high = part.split("-", 1)
            ranges.append((int(low), int(high)))
        elif part:
            ranges.append((int(part), int(part)))
    return lambda code: any(low <= code <= high for low, high in ranges)


@dataclass(frozen=True)
class Probe:
    status: int | None
    seconds: float
    error: str | None = None  # "timeout", "tls: ...", "connection: ..."
    ok: bool = False
    # The server ended the TLS handshake (an alert: no client certificate, one it does not trust), as
    # opposed to a server certificate this client does not trust.
    handshake_refused: bool = False
    location: str | None = None  # a redirect's target (a sign-in page)


@dataclass(frozen=True)
class Credentials:
    """What a caller presents: a bearer token (an ID token, never printed), a client certificate."""

    token: str | None = None
    client_cert: str | None = None  # PEM file
    client_key: str | None = None  # PEM file; None: the key is in client_cert

    @property
    def given(self) -> bool:
        return bool(self.token or self.client_cert)

    @staticmethod
    def from_files(token_file: str | None, client_cert: str | None, client_key: str | None) -> Credentials:
        token = Path(token_file).read_text().strip() if token_file else None
        return Credentials(token or None, client_cert, client_key)


def credentials_problem(token_file: str | None, client_cert: str | None, client_key: str | None
                        ) -> tuple[str, str] | None:
    """(option, what is wrong) with the probe's credentials; None when they load."""
    if client_key and not client_cert:
        return "--probe-client-key", "give the certificate too (--probe-client-cert)"
    if token_file:
        try:
            if not Path(token_file).read_text().strip():
                return "--probe-token-file", "the file is empty: expected an ID token"
        except OSError as error:
            return "--probe-token-file", f"cannot read it: {error.strerror or error}"
    if client_cert:
        try:
            ssl.create_default_context().load_cert_chain(client_cert, client_key)
        except FileNotFoundError:
            return "--probe-client-cert", "no such file"
        except (ssl.SSLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or getattr(error, "strerror", None) or error
            return "--probe-client-cert", f"expected a PEM certificate and its key (cannot load them: {reason})"
    return None


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def probe_once(
    url: str, *, timeout: float, context: ssl.SSLContext, accept: Callable[[int], bool], token: str | None = None
) -> tuple[Probe, dict | None]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or 443
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=context)
    start = time.perf_counter()
    certificate = None
    try:
        connection.connect()
        certificate = connection.sock.getpeercert() if connection.sock else None
        headers = {"User-Agent": "accelplane-verify", "Connection": "close"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - start
        if elapsed > timeout:
            return Probe(response.status, elapsed, "timeout"), certificate
        return Probe(response.status, elapsed, None, accept(response.status),
                     location=response.getheader("Location")), certificate
    except ssl.SSLCertVerificationError as error:
        return Probe(None, time.perf_counter() - start, f"tls: {error.verify_message or error}"), None
    except ssl.SSLError as error:
        return Probe(None, time.perf_counter() - start, f"tls: {error.reason or error}", handshake_refused=True), None
    except TimeoutError:
        return Probe(None, time.perf_counter() - start, "timeout"), certificate
    except ConnectionResetError as error:
        # A server that requires a client certificate may drop the connection instead of sending its alert
        # (the request was already on the way when it checked the certificate).
        return Probe(None, time.perf_counter() - start, f"connection: {error}", handshake_refused=True), certificate
    except (OSError, http.client.HTTPException) as error:
        return Probe(None, time.perf_counter() - start, f"connection: {error}"), certificate
    finally:
        connection.close()


def _expiry(certificate: dict | None) -> datetime | None:
    not_after = (certificate or {}).get("notAfter")
    if not isinstance(not_after, str):
        return None
    return datetime.fromtimestamp(ssl.cert_time_to_seconds(not_after), tz=UTC)


def probe_endpoint(
    url: str,
    *,
    probes: int,
    timeout: float,
    matcher: str = "200",
    ca_bundle: str | None = None,
    now: datetime | None = None,
    subject: Subject | None = None,
    authenticates: str | None = None,
    credentials: Credentials | None = None,
) -> list[CheckResult]:
    """Results for `endpoint.tls`, `endpoint.health`, `endpoint.certificate-expiry`, `endpoint.latency`, and
    `endpoint.auth` where the endpoint `authenticates` clients (the declared methods, in words)."""
    where: Subject = subject or {}
    accept = parse_matcher(matcher)
    results: list[CheckResult] = []
    certificate: dict | None = None
    if authenticates:
        anonymous, certificate = probe_once(url, timeout=timeout, context=ssl.create_default_context(cafile=ca_bundle),
                                            accept=accept)
        results.append(_refused(url, anonymous, authenticates, where))
        if not (credentials and credentials.given):
            how = ("people sign in with a browser session: the targets' health checks stand for it"
                   if authenticates == "people" else "give --probe-token-file or --probe-client-cert to probe it as "
                   "a caller")
            results.append(CheckResult(
                CheckId.endpoint_health, Status.skipped, f"{url} authenticates its clients ({authenticates}): {how}",
                **where))
            return results + _certificate_results(certificate, now, where)
    context = ssl.create_default_context(cafile=ca_bundle)
    if credentials and credentials.client_cert:
        context.load_cert_chain(credentials.client_cert, credentials.client_key)
    token = credentials.token if credentials else None
    outcomes: list[Probe] = []
    for _ in range(probes):
        outcome, seen = probe_once(url, timeout=timeout, context=context, accept=accept, token=token)
        outcomes.append(outcome)
        certificate = certificate or seen
        if outcome.error and outcome.error.startswith("tls:"):
            break  # a certificate that does not verify will not verify on the next try
    results += _probe_results(url, outcomes, certificate, matcher=matcher, timeout=timeout, where=where)
    results += _certificate_results(certificate, now, where)
    results += _latency_results(outcomes, where)
    return results


def _probe_results(url: str, outcomes: Sequence[Probe], certificate: dict | None, *, matcher: str, timeout: float,
                   where: Subject) -> list[CheckResult]:
    """`endpoint.tls` and `endpoint.health` from the probes' outcomes."""
    results: list[CheckResult] = []
    tls_errors = [o.error for o in outcomes if o.error and o.error.startswith("tls:")]
    if tls_errors:
        results.append(CheckResult(CheckId.endpoint_tls, Status.failed, f"{url}: {tls_errors[0]}", **where))
    elif certificate is not None:
        results.append(
            CheckResult(CheckId.endpoint_tls, Status.passed, f"{url}: certificate verified for the host", **where)
        )
    good = [o for o in outcomes if o.ok]
    if len(good) == len(outcomes):
        results.append(
            CheckResult(
                CheckId.endpoint_health,
                Status.passed,
                f"{len(good)}/{len(outcomes)} probes of {url} answered {matcher}",
                **where,
            )
        )
    else:
        reasons = Counter(o.error if o.error else f"HTTP {o.status}" for o in outcomes if not o.ok)
        detail = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
        results.append(
            CheckResult(
                CheckId.endpoint_health,
                Status.failed,
                f"{len(outcomes) - len(good)}/{len(outcomes)} probes of {url} failed (expected {matcher} within "
                f"{timeout:g}s): {detail}",
                **where,
            )
        )
    return results


def _latency_results(outcomes: Sequence[Probe], where: Subject) -> list[CheckResult]:
    good = [o for o in outcomes if o.ok]
    if not good:
        return []
    latencies = [o.seconds * 1000 for o in good]
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    return [
        CheckResult(
            CheckId.endpoint_latency,
            Status.passed,
            f"latency over {len(good)} probes: p50 {p50:.1f} ms, p99 {p99:.1f} ms",
            actual={"p50_ms": round(p50, 2), "p99_ms": round(p99, 2), "probes": len(good)},
            **where,
        )
    ]


def _certificate_results(certificate: dict | None, now: datetime | None, where: Subject) -> list[CheckResult]:
    expiry = _expiry(certificate)
    if expiry is None:
        return []
    days = (expiry - (now or datetime.now(UTC))).total_seconds() / 86400
    if days < 0:
        status, text = Status.failed, f"certificate expired on {expiry.date()}"
    elif days < CERT_WARN_DAYS:
        status, text = Status.warning, f"certificate expires in {int(days)} days ({expiry.date()}): renew it"
    else:
        status, text = Status.passed, f"certificate valid for {int(days)} more days ({expiry.date()})"
    return [CheckResult(CheckId.endpoint_certificate, status, text, actual=expiry.isoformat(), **where)]


SIGN_IN_REDIRECTS = frozenset({302, 303, 307})


def _refused(url: str, anonymous: Probe, authenticates: str, where: Subject) -> CheckResult:
    """`endpoint.auth`: what a request without any credential got."""
    if anonymous.status in (401, 403):
        return CheckResult(CheckId.endpoint_auth, Status.passed,
                           f"{url} refused a client without credentials: HTTP {anonymous.status} ({authenticates})",
                           **where)
    if anonymous.status in SIGN_IN_REDIRECTS and anonymous.location and "people" in authenticates:
        # A browser without a session is sent to the sign-in page (the ALB's authenticate-cognito): refused,
        # with a way in for people.
        target = urlsplit(anonymous.location)
        return CheckResult(CheckId.endpoint_auth, Status.passed,
                           f"{url} sent a client without credentials to sign in: HTTP {anonymous.status} to "
                           f"{target.scheme}://{target.netloc}{target.path} ({authenticates})", **where)
    if anonymous.handshake_refused and "mutual_tls" in authenticates:
        return CheckResult(CheckId.endpoint_auth, Status.passed,
                           f"{url} refused a client without credentials at the TLS handshake ({anonymous.error}; "
                           f"{authenticates})", **where)
    if anonymous.status is not None:
        return CheckResult(CheckId.endpoint_auth, Status.failed,
                           f"{url} answered HTTP {anonymous.status} to a client without credentials: it does not "
                           f"authenticate clients as declared ({authenticates})", actual=anonymous.status, **where)
    return CheckResult(CheckId.endpoint_auth, Status.failed,
                       f"{url}: could not tell whether a client without credentials is refused: {anonymous.error}",
                       **where)
