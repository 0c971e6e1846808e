"""HTTPS health probe of the inference endpoint: the declared health-check path, as a client sees it.

N sequential probes, each a new TLS connection (handshake included in the latency, as for a new
client), verified against the system trust store or `--ca-bundle`. Reported: whether TLS verifies
for the host, whether every probe answered with a status the declared matcher accepts within the
timeout, the certificate's days to expiry (warning under 30, failure once expired) and the latency
p50/p99 (nearest rank) of the probes that succeeded.
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


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def probe_once(
    url: str, *, timeout: float, context: ssl.SSLContext, accept: Callable[[int], bool]
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
        connection.request("GET", path, headers={"User-Agent": "accelplane-verify", "Connection": "close"})
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - start
        if elapsed > timeout:
            return Probe(response.status, elapsed, "timeout"), certificate
        return Probe(response.status, elapsed, None, accept(response.status)), certificate
    except ssl.SSLCertVerificationError as error:
        return Probe(None, time.perf_counter() - start, f"tls: {error.verify_message or error}"), None
    except ssl.SSLError as error:
        return Probe(None, time.perf_counter() - start, f"tls: {error.reason or error}"), None
    except TimeoutError:
        return Probe(None, time.perf_counter() - start, "timeout"), certificate
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
) -> list[CheckResult]:
    """Results for `endpoint.tls`, `endpoint.health`, `endpoint.certificate-expiry`, `endpoint.latency`."""
    where: Subject = subject or {}
    context = ssl.create_default_context(cafile=ca_bundle)
    accept = parse_matcher(matcher)
    outcomes: list[Probe] = []
    certificate: dict | None = None
    for _ in range(probes):
        outcome, seen = probe_once(url, timeout=timeout, context=context, accept=accept)
        outcomes.append(outcome)
        certificate = certificate or seen
        if outcome.error and outcome.error.startswith("tls:"):
            break  # a certificate that does not verify will not verify on the next try
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
    expiry = _expiry(certificate)
    if expiry is not None:
        days = (expiry - (now or datetime.now(UTC))).total_seconds() / 86400
        if days < 0:
            status, text = Status.failed, f"certificate expired on {expiry.date()}"
        elif days < CERT_WARN_DAYS:
            status, text = Status.warning, f"certificate expires in {int(days)} days ({expiry.date()}): renew it"
        else:
            status, text = Status.passed, f"certificate valid for {int(days)} more days ({expiry.date()})"
        results.append(CheckResult(CheckId.endpoint_certificate, status, text, actual=expiry.isoformat(), **where))
    if good:
        latencies = [o.seconds * 1000 for o in good]
        p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
        results.append(
            CheckResult(
                CheckId.endpoint_latency,
                Status.passed,
                f"latency over {len(good)} probes: p50 {p50:.1f} ms, p99 {p99:.1f} ms",
                actual={"p50_ms": round(p50, 2), "p99_ms": round(p99, 2), "probes": len(good)},
                **where,
            )
        )
    return results
