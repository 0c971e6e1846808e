"""What the inference endpoint offers against what its declaration promises: the TLS versions its
TLS or SSL policy allows, and the plain-HTTP listener that only redirects to HTTPS.

- `endpoint.tls-versions`: one handshake per protocol version below the declared minimum (TLS 1.0,
  1.1, and 1.2 when the minimum is 1.3), each offering that version only, with every cipher the
  local OpenSSL has (security level 0) and no certificate check: the question is what the server
  accepts, not whom it is. A handshake that completes is a version the policy should refuse (a
  policy changed by hand, or a listener or target proxy still on an older policy). A version this
  machine's OpenSSL cannot offer at all is named as not tested.
- `endpoint.http-redirect` (where `http_redirect` is declared): a GET of the health path over plain
  HTTP must answer a redirect (301, 302, 307 or 308) whose Location is an https:// URL, and nothing
  else: a 200 there serves inference over plain HTTP.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import warnings
from dataclasses import dataclass
from urllib.parse import urlsplit

from accelplane.urls import url_problem
from accelplane.verify.results import CheckId, CheckResult, Status, Subject

# Policy spelling (Compute's SslPolicy.minTlsVersion) -> what ssl offers, oldest first.
VERSIONS = ("TLS_1_0", "TLS_1_1", "TLS_1_2", "TLS_1_3")
_SSL_VERSIONS = {
    "TLS_1_0": "TLSv1",
    "TLS_1_1": "TLSv1_1",
    "TLS_1_2": "TLSv1_2",
    "TLS_1_3": "TLSv1_3",
}
REDIRECTS = frozenset({301, 302, 307, 308})


@dataclass(frozen=True)
class EndpointPolicy:
    minimum_tls: str | None  # one of VERSIONS; None: not known from the declaration
    source: str  # what declares it, for messages ("SSL policy acme-tpu-inference-ssl")
    http_redirect: bool = False


def _label(version: str) -> str:
    return version.replace("TLS_", "TLS ").replace("_", ".")


def _accepts(host: str, port: int, version: str, timeout: float) -> bool | str:
    """True when the server completes a handshake offering only `version`; False when it refuses;
    a string when this machine cannot offer the version (why)."""
    with warnings.catch_warnings():  # TLS 1.0/1.1 are deprecated in ssl: offering them is the test
        warnings.simplefilter("ignore", DeprecationWarning)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            context.set_ciphers("ALL:@SECLEVEL=0")
            wanted = getattr(ssl.TLSVersion, _SSL_VERSIONS[version])
            context.minimum_version = wanted
            context.maximum_version = wanted
        except (ValueError, ssl.SSLError) as error:
            return f"this machine's OpenSSL cannot offer {_label(version)} ({error})"
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=host) as tls:
            return tls.version() is not None
    except ssl.SSLError as error:
        if "no protocols available" in str(error).lower():
            return f"this machine's OpenSSL cannot offer {_label(version)}"
        return False
    except OSError:
        return False


def tls_versions_check(url: str, policy: EndpointPolicy, *, timeout: float, subject: Subject) -> CheckResult:
    assert policy.minimum_tls in VERSIONS
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or 443
    below = VERSIONS[: VERSIONS.index(policy.minimum_tls)]
    accepted, untested = [], []
    for version in below:
        answer = _accepts(host, port, version, timeout)
        if isinstance(answer, str):
            untested.append(answer)
        elif answer:
            accepted.append(_label(version))
    where = f"{host}:{port}"
    minimum = _label(policy.minimum_tls)
    if accepted:
        return CheckResult(CheckId.endpoint_tls_versions, Status.failed,
                           f"{where} accepts {', '.join(accepted)}, below the minimum {minimum} of {policy.source}",
                           expected=policy.minimum_tls, actual=accepted, **subject)
    refused = [_label(v) for v in below]
    note = f" ({'; '.join(untested)})" if untested else ""
    return CheckResult(CheckId.endpoint_tls_versions, Status.passed,
                       f"{where} refuses {', '.join(refused) or 'nothing below it'}: minimum {minimum} as "
                       f"{policy.source} declares{note}", **subject)


def http_url_problem(url: str) -> str | None:
    """What is wrong with `url` as the plain-HTTP URL whose redirect is checked; None if usable."""
    return url_problem(url, "expected an http:// URL with a host, e.g. http://api.example.com/healthz",
                       schemes=("http",), scheme_hint="the redirect is checked over plain HTTP")


def http_url_for(https_url: str) -> str:
    """The plain-HTTP twin of the probe URL: the same host and path on port 80."""
    parts = urlsplit(https_url)
    return f"http://{parts.hostname}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")


def redirect_check(url: str, *, timeout: float, subject: Subject) -> CheckResult:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=timeout)
    try:
        connection.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                           headers={"User-Agent": "accelplane-verify", "Connection": "close"})
        response = connection.getresponse()
        response.read()
    except (OSError, http.client.HTTPException) as error:
        return CheckResult(CheckId.endpoint_http_redirect, Status.failed,
                           f"{url}: no answer over plain HTTP ({error}); the declared listener redirects to HTTPS",
                           **subject)
    finally:
        connection.close()
    location = response.getheader("Location") or ""
    if response.status in REDIRECTS and location.startswith("https://"):
        return CheckResult(CheckId.endpoint_http_redirect, Status.passed,
                           f"{url} answers {response.status} to {location}", **subject)
    what = f"{response.status} with Location {location}" if location else f"{response.status}"
    return CheckResult(CheckId.endpoint_http_redirect, Status.failed,
                       f"{url} answers {what}: plain HTTP must only redirect to https://", expected="301 to https://",
                       actual=response.status, **subject)
