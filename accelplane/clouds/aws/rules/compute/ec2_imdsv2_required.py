"""AP-EC2-001: instance metadata requires IMDSv2 session tokens."""

from __future__ import annotations

from collections.abc import Iterator

from accelplane.clouds.aws import resource_types as t
from accelplane.rules.graph import ReferenceGraph
from accelplane.rules.rule import Enforcement, Family, Rule, Severity
from accelplane.rules.view import Resource, as_str


def check(resource: Resource, graph: ReferenceGraph) -> Iterator[str]:
    if as_str(resource.get("metadataOptions", "httpEndpoint")) == "disabled":
        return
    tokens = as_str(resource.get("metadataOptions", "httpTokens"))
    if tokens != "required":
        yield f"metadataOptions.httpTokens is {tokens or 'not set'}: IMDSv1 stays reachable"


RULE = Rule(
    id="AP-EC2-001",
    name="ec2-imdsv2-required",
    description="Checks whether launch templates and instances require IMDSv2 (http_tokens required).",
    family=Family.compute,
    severity=Severity.high,
    enforcement=Enforcement.mandatory,
    remediation="Set metadata_options.http_tokens to required.",
    resource_types=frozenset({t.LAUNCH_TEMPLATE, t.INSTANCE}),
    check=check,
    categories=("credentials",),
)
