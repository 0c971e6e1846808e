"""AP-LB-001: HTTPS/TLS listeners use a security policy that allows TLS 1.2 or newer only.

ELB policy names say their minimum protocol: `ELBSecurityPolicy-TLS13-1-2-*`, `-TLS13-1-3-*`,
`-TLS-1-2-*` and `-FS-1-2-*` start at TLS 1.2; `ELBSecurityPolicy-2016-08`, `-TLS-1-1-*`,
`-TLS13-1-0/1-1-*` and `-FS-1-1-*` still accept TLS 1.0/1.1 (ELB user guide, "Security policies").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str

TLS12_POLICY = re.compile(r"^ELBSecurityPolicy-(TLS13-1-[23]|TLS-1-2|FS-1-2)-")


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    protocol = as_str(resource.get("protocol")).upper()
    if protocol not in ("HTTPS", "TLS"):
        return
    policy = as_str(resource.get("sslPolicy"))
    if not TLS12_POLICY.match(policy):
        yield f"{protocol} listener uses {policy or 'the default security policy'}, which accepts TLS older than 1.2"
    if not as_str(resource.get("certificateArn")):
        yield f"{protocol} listener names no certificate"


RULE = Rule(
    id="AP-LB-001",
    name="lb-https-tls12",
    description="Checks whether HTTPS/TLS listeners use a TLS 1.2+ security policy and a certificate.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Use ssl_policy ELBSecurityPolicy-TLS13-1-2-2021-06 (or a -Res/-FIPS variant).",
    resource_types=t.LISTENERS,
    check=check,
    categories=("encryption-in-transit",),
    references=("https://docs.aws.amazon.com/elasticloadbalancing/latest/application/describe-ssl-policies.html",),
)
