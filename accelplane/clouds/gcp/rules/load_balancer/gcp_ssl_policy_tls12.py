"""AP-GLB-001: SSL policies allow TLS 1.2 or newer only, with a modern cipher profile.

`minTlsVersion` defaults to TLS_1_0 and `profile` to COMPATIBLE (which keeps 3DES). Accepted:
minimum TLS_1_2 or TLS_1_3 with profile MODERN, RESTRICTED or FIPS_202205, or CUSTOM whose
`customFeatures` are all forward-secret AEAD suites (ECDHE with AES-GCM or ChaCha20-Poly1305) or
TLS 1.3 suites: no CBC, no RSA key exchange, no 3DES. Twin of AP-LB-001.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_list, as_str

MIN_VERSIONS = frozenset({"TLS_1_2", "TLS_1_3"})
PROFILES = frozenset({"MODERN", "RESTRICTED", "FIPS_202205"})
STRONG_FEATURES = frozenset(
    {
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_AES_128_GCM_SHA256",
        "TLS_AES_256_GCM_SHA384",
        "TLS_CHACHA20_POLY1305_SHA256",
    }
)


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    version = as_str(resource.get("minTlsVersion")) or "TLS_1_0"
    if version not in MIN_VERSIONS:
        yield f"minTlsVersion is {version}: clients may negotiate TLS older than 1.2"
    profile = as_str(resource.get("profile")) or "COMPATIBLE"
    if profile == "CUSTOM":
        features = [as_str(f) for f in as_list(resource.get("customFeatures"))]
        weak = sorted(f for f in features if f not in STRONG_FEATURES)
        if weak:
            yield f"CUSTOM profile enables weak cipher suites: {', '.join(weak)}"
        elif not features:
            yield "CUSTOM profile names no cipher suites"
    elif profile not in PROFILES:
        yield f"profile {profile} enables legacy cipher suites: use MODERN or RESTRICTED"


RULE = Rule(
    id="AP-GLB-001",
    name="gcp-ssl-policy-tls12",
    description="Checks whether a GCP SSL policy sets minTlsVersion TLS_1_2 or newer with the MODERN, RESTRICTED "
    "or FIPS_202205 profile, or CUSTOM without weak suites.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set min_tls_version=\"TLS_1_2\" and profile=\"RESTRICTED\" (or MODERN) on the SSL policy.",
    resource_types=frozenset({t.GCP_SSL_POLICY}),
    check=check,
    categories=("encryption-in-transit",),
    references=("https://cloud.google.com/load-balancing/docs/ssl-policies-concepts",),
)
