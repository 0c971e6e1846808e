"""AP-GLB-002: Cloud Armor policies deny by default and allow named source ranges only.

The inference endpoint's Cloud Armor policy stands in for the AWS layer's load balancer security
group: its default rule (priority 2147483647, which the API creates as `allow` when none is given)
must deny, and each `allow` rule must name specific `srcIpRanges` (the declaration's
`allowed_cidrs`), never `*`, 0.0.0.0/0 or ::/0, which would make the default deny moot. A rule in
`preview` mode only logs. Allow rules matched by a CEL expression (`match.expr`) are not judged.
Network-edge policies (`CLOUD_ARMOR_NETWORK`) filter packets, not requests, and are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.gcp import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_bool, as_int, as_list, as_str, get

DEFAULT_PRIORITY = 2147483647
_EVERYONE = frozenset({"*", "0.0.0.0/0", "::/0"})


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if (as_str(resource.get("type")) or "CLOUD_ARMOR") == "CLOUD_ARMOR_NETWORK":
        return
    rules = as_list(resource.get("rules"))
    default = [r for r in rules if as_int(get(r, "priority")) == DEFAULT_PRIORITY]
    if not default:
        yield "no default rule (priority 2147483647): Cloud Armor creates one that allows every request"
    for rule in default:
        action = as_str(get(rule, "action"))
        if not action.startswith("deny"):
            yield f"the default rule's action is {action or 'not set'}: requests from unlisted sources are served"
        elif as_bool(get(rule, "preview")):
            yield "the default deny rule is in preview mode: it only logs"
    for rule in rules:
        if as_str(get(rule, "action")) != "allow" or as_int(get(rule, "priority")) == DEFAULT_PRIORITY:
            continue
        ranges = [as_str(r) for r in as_list(get(rule, "match", "config", "srcIpRanges"))]
        everyone = sorted(r for r in ranges if r in _EVERYONE)
        if everyone:
            yield f"rule {as_int(get(rule, 'priority'))} allows {', '.join(everyone)}: name the client ranges"


RULE = Rule(
    id="AP-GLB-002",
    name="gcp-cloud-armor-default-deny",
    description="Checks whether a Cloud Armor security policy's default rule denies and its allow rules name "
    "specific source ranges.",
    family=Family.load_balancer,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Add a rule at priority 2147483647 with action \"deny(403)\" and match src_ip_ranges [\"*\"], and "
    "allow rules whose src_ip_ranges are the endpoint's allowed_cidrs.",
    resource_types=frozenset({t.GCP_SECURITY_POLICY}),
    check=check,
    categories=("network-exposure",),
    references=("https://cloud.google.com/armor/docs/security-policy-overview#default-rule",),
)
