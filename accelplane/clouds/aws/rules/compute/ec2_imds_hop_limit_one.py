"""AP-EC2-002: the metadata response hop limit is 1, so pods cannot borrow the node's role.

With a hop limit of 2 a container (one network hop away) reaches IMDS and the node role's
credentials; workloads must use their own roles (IRSA).
"""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_int, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_str(resource.get("metadataOptions", "httpEndpoint")) == "disabled":
        return
    limit = as_int(resource.get("metadataOptions", "httpPutResponseHopLimit"))
    if limit != 1:
        yield f"metadataOptions.httpPutResponseHopLimit is {limit if limit is not None else 'not set'}, not 1"


RULE = Rule(
    id="AP-EC2-002",
    name="ec2-imds-hop-limit-one",
    description="Checks whether the instance metadata hop limit is exactly 1.",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set metadata_options.http_put_response_hop_limit to 1.",
    resource_types=frozenset({t.LAUNCH_TEMPLATE, t.INSTANCE}),
    check=check,
    categories=("credentials",),
)
